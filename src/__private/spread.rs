//! How the expansion of a spread `..#xs` reaches its items, whatever was passed.
//!
//! The value is wrapped in a [`SpreadSource`], and method resolution picks the way:
//! `(&&source).spread_kind()` finds [`ViaIterator`] when the value is `IntoIterator` (iterators,
//! `Vec`s, `&Vec`, `&[T]`, arrays) and falls back to [`ViaList`] otherwise, whose
//! position's `Spread*` bound looks through references (`&&[T]`, the borrow of a slice parameter) and,
//! when nothing fits, gives the one error that names the position. This works because the
//! expansion stands where every type is concrete.

use crate::interpolate::{
    SpreadAttributeList, SpreadDimensions, SpreadFunctions, SpreadNodes, SpreadTensorData,
    SpreadTensorDims, SpreadValueNames,
};

/// A spread's value.
pub struct SpreadSource<T>(pub T);

/// The spread iterates its value by value.
pub struct ByIterator;
/// The spread borrows its value as a list.
pub struct ByList;

/// Chosen first, when the value is `IntoIterator`.
pub trait ViaIterator {
    /// The way to the items.
    fn spread_kind(&self) -> ByIterator {
        ByIterator
    }
}
impl<I: IntoIterator> ViaIterator for &SpreadSource<I> {}

/// Chosen otherwise.
pub trait ViaList {
    /// The way to the items.
    fn spread_kind(&self) -> ByList {
        ByList
    }
}
impl<T> ViaList for SpreadSource<T> {}

impl ByIterator {
    /// `f` of a reference to every item.
    pub fn map<I: IntoIterator, R>(
        self,
        source: SpreadSource<I>,
        mut f: impl FnMut(&I::Item) -> R,
    ) -> Vec<R> {
        source.0.into_iter().map(|item| f(&item)).collect()
    }
}

/// One method per position, named as in `onnx_macro`'s expansion, each bound by the position's
/// trait so that a value that is not a list gets that trait's message.
macro_rules! by_list {
    ($($position:ident: $trait:ident;)*) => {
        impl ByList {$(
            #[doc = concat!("`f` of a reference to every item, for a spread bound by [`", stringify!($trait), "`].")]
            pub fn $position<T: $trait, R>(
                self,
                source: SpreadSource<T>,
                f: impl FnMut(&T::Item) -> R,
            ) -> Vec<R> {
                $trait::map_items(&source.0, f)
            }
        )*}
        /// The same names for spreads that are `IntoIterator`.
        impl ByIterator {$(
            #[doc = concat!("`f` of a reference to every item of a spread of ", stringify!($position), ".")]
            pub fn $position<I: IntoIterator, R>(self, source: SpreadSource<I>, f: impl FnMut(&I::Item) -> R) -> Vec<R> {
                self.map(source, f)
            }
        )*}
    };
}
by_list! {
    dimensions: SpreadDimensions;
    value_names: SpreadValueNames;
    attribute_lists: SpreadAttributeList;
    tensor_data: SpreadTensorData;
    tensor_dims: SpreadTensorDims;
    node_lists: SpreadNodes;
    function_lists: SpreadFunctions;
}
