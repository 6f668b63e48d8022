//! The arrays of the matrices: owned (just recorded) or borrowed from a memory-mapped matrix
//! file (loaded), read the same way through `Deref`.

use std::ops::Deref;
use std::sync::Arc;

use memmap2::Mmap;

/// A read-only array of plain integers.
#[derive(Clone)]
pub enum Buffer<T: bytemuck::Pod> {
    Owned(Vec<T>),
    /// `len` elements at byte `offset` of a mapped file. The offset is a multiple of the
    /// element's alignment (the file format places every section so), which the constructor
    /// checks.
    Mapped {
        map: Arc<Mmap>,
        offset: usize,
        len: usize,
    },
}

impl<T: bytemuck::Pod> Buffer<T> {
    /// A mapped section, if it lies inside the map and is aligned for `T`.
    pub(crate) fn mapped(map: &Arc<Mmap>, offset: usize, len: usize) -> Option<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let end = offset.checked_add(bytes)?;
        let section = map.get(offset..end)?;
        bytemuck::try_cast_slice::<u8, T>(section).ok()?;
        Some(Buffer::Mapped {
            map: Arc::clone(map),
            offset,
            len,
        })
    }
}

impl<T: bytemuck::Pod> Deref for Buffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Buffer::Owned(v) => v,
            Buffer::Mapped { map, offset, len } => {
                let bytes = &map[*offset..*offset + len * std::mem::size_of::<T>()];
                // Bounds and alignment were checked when the buffer was made, and the map
                // does not change.
                bytemuck::cast_slice(bytes)
            }
        }
    }
}

impl<T: bytemuck::Pod> From<Vec<T>> for Buffer<T> {
    fn from(v: Vec<T>) -> Self {
        Buffer::Owned(v)
    }
}

impl<T: bytemuck::Pod + PartialEq> PartialEq for Buffer<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: bytemuck::Pod + Eq> Eq for Buffer<T> {}

impl<T: bytemuck::Pod + std::fmt::Debug> std::fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self {
            Buffer::Owned(_) => "owned",
            Buffer::Mapped { .. } => "mapped",
        };
        write!(f, "Buffer({kind}, {} elements)", self.len())
    }
}

impl<T: bytemuck::Pod> Default for Buffer<T> {
    fn default() -> Self {
        Buffer::Owned(Vec::new())
    }
}
