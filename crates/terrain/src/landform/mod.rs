//! Landform analysis: slope, aspect, TPI, curvature, Weiss classes, openness.
