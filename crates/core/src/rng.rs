//! Seeded generators on the canonical hash.
