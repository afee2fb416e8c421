//! The flat terrain (pyworldgen `flat`).
