//! Frame buffers kept between frames.
//!
//! A 1280 × 720 frame with 2 × 2 samples needs a 29 MiB key buffer, a 2048² shadow map 16 MiB,
//! and a mesh's clip coordinates 32 bytes a vertex. Allocated afresh each frame, every page of
//! them is faulted in again, which on a virtual machine costs more than drawing into it. The
//! pools below keep the last frame's buffers (at most [`KEEP`] per pool, each at most
//! [`MAX_BYTES`]) for the next one; [`free_frame_buffers`](super::free_frame_buffers) drops
//! them. What a buffer held is never seen again: every taker overwrites the whole length it
//! uses (rayon's `collect_into_vec` or an explicit fill).

use std::sync::Mutex;

/// Buffers kept per pool.
const KEEP: usize = 2;
/// The largest buffer kept, in bytes.
const MAX_BYTES: usize = 512 << 20;

/// A few spare vectors of `T`.
pub(crate) struct Pool<T>(Mutex<Vec<Vec<T>>>);

impl<T> Pool<T> {
    pub const fn new() -> Self {
        Self(Mutex::new(Vec::new()))
    }

    /// An empty vector, with the capacity of a kept one when there is one.
    pub fn take(&self) -> Vec<T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
    }

    /// Keeps `v`'s allocation for a later [`Self::take`], unless the pool is full or `v` is too
    /// large.
    pub fn give(&self, mut v: Vec<T>) {
        if v.capacity() * std::mem::size_of::<T>() > MAX_BYTES {
            return;
        }
        v.clear();
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() < KEEP {
            kept.push(v);
        }
    }

    /// Drops every kept vector.
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}
