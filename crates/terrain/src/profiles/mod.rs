//! The 19 named profiles and the original bozkir generator.
