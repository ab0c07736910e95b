// SPDX-License-Identifier: GPL-2.0

//! The lock in the types: a [`Lock<T, B>`] owns the data `T` that only the holder of the lock
//! may touch, and the [`Guard`] that [`Lock::lock`] returns is the only way to it, as with
//! `kernel::sync::Lock<T, B>`. The map's logic depends on `core` only (it is also tested on the
//! host), hence this equivalent in the crate: its [`Backend`] is PASR's irq-saving raw spinlock
//! in the kernel (`pasr_lock_irqsave()`), and a spin lock in the host tests.

use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

/// The operations of a lock, as `kernel::sync::lock::Backend`.
///
/// # Safety
///
/// [`Backend::lock`] must not return while another caller holds the lock, on any CPU, this one
/// included, until that caller's matching [`Backend::unlock`].
pub unsafe trait Backend {
    /// What [`Backend::lock`] hands to [`Backend::unlock`]: the saved interrupt state.
    type GuardState;

    /// Acquires the lock, spinning if need be.
    fn lock(&self) -> Self::GuardState;

    /// Releases the lock.
    ///
    /// # Safety
    ///
    /// The caller holds the lock, taken by the [`Backend::lock`] call that returned `state`.
    unsafe fn unlock(&self, state: &Self::GuardState);
}

/// Data of type `T` that only the holder of the lock `B` may reach.
///
/// # Invariants
///
/// `data` is only reached through a [`Guard`], which exists only while the lock is held, or
/// through [`Lock::data_ptr`], whose users guarantee that nothing else runs.
pub struct Lock<T, B: Backend> {
    backend: B,
    data: UnsafeCell<T>,
}

// SAFETY: `data` is only reached with the lock held (type invariants), one CPU at a time, so
// sharing the lock only moves `T` between CPUs: `T: Send` suffices. Every CPU calls the backend.
unsafe impl<T: Send, B: Backend + Sync> Sync for Lock<T, B> {}

impl<T, B: Backend> Lock<T, B> {
    /// A lock `backend` over `data`.
    pub const fn new(backend: B, data: T) -> Self {
        Self {
            backend,
            data: UnsafeCell::new(data),
        }
    }

    /// Acquires the lock; it is held until the guard is dropped.
    pub fn lock(&self) -> Guard<'_, T, B> {
        let state = self.backend.lock();
        // INVARIANT: The lock was just acquired, and the guard releases it when dropped.
        Guard {
            lock: self,
            state,
            _not_send: PhantomData,
        }
    }

    /// The data, without the lock: `&mut self` already excludes every other user.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    /// The backend, for what else it provides (the map's environment).
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The data, without the lock: for a panic, when the lock may never be released. Reaching
    /// the data through it is only sound while nothing else runs (see the type invariants).
    pub fn data_ptr(&self) -> *mut T {
        self.data.get()
    }
}

/// Access to the data of a held [`Lock`]; releases the lock when dropped.
///
/// # Invariants
///
/// `lock` is held, taken by the call that returned `state`.
pub struct Guard<'a, T, B: Backend> {
    lock: &'a Lock<T, B>,
    state: B::GuardState,
    /// The lock is released where it was taken: with interrupts off, on that CPU.
    _not_send: PhantomData<*mut ()>,
}

impl<T, B: Backend> Deref for Guard<'_, T, B> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: The lock is held (type invariants), so nothing else reaches the data.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T, B: Backend> DerefMut for Guard<'_, T, B> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: The lock is held (type invariants), and `&mut self` makes this the only
        // reference through the guard.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T, B: Backend> Drop for Guard<'_, T, B> {
    fn drop(&mut self) {
        // SAFETY: The lock is held, taken by the call that returned `state` (type invariants).
        unsafe { self.lock.backend.unlock(&self.state) };
    }
}
