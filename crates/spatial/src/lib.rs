//! Spatial structures of bozkir (issue 22): under construction.
