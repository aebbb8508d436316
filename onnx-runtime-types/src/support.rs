//! What the generated impls (`generated/onnx_impls.rs`) call besides `prost::encoding`: the
//! few lines prost's derive macros wrote into every impl, written once here.

use std::fmt;
use std::marker::PhantomData;

use prost::DecodeError;

/// Names the field where decoding failed, as prost's derive did: `error.push(message, field)`,
/// so that the error reads `failed to decode Protobuf message: NodeProto.attribute: ...`.
pub(crate) fn at(
    message: &'static str,
    field: &'static str,
) -> impl FnOnce(DecodeError) -> DecodeError {
    move |mut error| {
        error.push(message, field);
        error
    }
}

/// An enum-typed field's `i32` in `Debug` output: the variant's name when the number is one of
/// `E`'s, the number otherwise (as prost's derive printed it: `data_location: Some(External)`).
pub(crate) struct EnumDebug<E>(i32, PhantomData<E>);

impl<E> EnumDebug<E> {
    pub(crate) fn new(value: i32) -> Self {
        Self(value, PhantomData)
    }
}

impl<E: TryFrom<i32> + fmt::Debug> fmt::Debug for EnumDebug<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match E::try_from(self.0) {
            Ok(variant) => variant.fmt(f),
            Err(_) => self.0.fmt(f),
        }
    }
}
