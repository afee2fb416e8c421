//! Meshing (issue 22): under construction.
