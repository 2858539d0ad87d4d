"""mlc-math-approx: polynomial approximations of f32 math ops (`driver.py`), one module per
function family, and the generated coefficient tables."""
