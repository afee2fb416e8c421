//! Voxel worlds (issue 22): under construction.
