//! Multi-biome composition (pyworldgen `composite`).
