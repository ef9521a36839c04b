//! What both codecs share to plug into zarrs: the state a codec binds to its data type, the zarrs
//! trait pieces and input checks, the partial decoder and encoder, and explicit registration.

pub(crate) mod binding;
pub(crate) mod codec_traits;
pub(crate) mod partial_decoder;
pub(crate) mod partial_encoder;
pub(crate) mod register;
