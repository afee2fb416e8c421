//! The river-valley landscape (pyworldgen `landscape`) and river carving on any height field.
