//! The state a codec builds for the data type it meets.
//!
//! zarrs shows an array-to-array codec its input data type only when chunks are encoded or decoded
//! (never when the array is opened). A codec resolves its data-type-dependent configuration and
//! chooses its kernels the first time, and keeps the result here: a codec instance sits at one
//! place of one codec chain, so it meets one data type.

use std::sync::{Arc, OnceLock};

use zarrs::array::DataType;

/// State bound to the first data type a codec meets.
#[derive(Debug)]
pub(crate) struct Binding<T> {
    cell: OnceLock<(DataType, Arc<T>)>,
}

impl<T> Default for Binding<T> {
    fn default() -> Self {
        Self {
            cell: OnceLock::new(),
        }
    }
}

impl<T> Clone for Binding<T> {
    fn clone(&self) -> Self {
        Self {
            cell: self.cell.clone(),
        }
    }
}

impl<T> Binding<T> {
    /// The state for `data_type`: the kept one if it was built for `data_type`, else a new one
    /// (which is kept if nothing is yet).
    ///
    /// # Errors
    /// Returns the error of `bind`.
    pub(crate) fn get<E>(
        &self,
        data_type: &DataType,
        bind: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        if let Some((bound_type, state)) = self.cell.get()
            && bound_type == data_type
        {
            return Ok(Arc::clone(state));
        }
        let state = Arc::new(bind()?);
        let _ = self.cell.set((data_type.clone(), Arc::clone(&state)));
        Ok(state)
    }
}
