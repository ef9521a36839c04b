//! What both codecs share to plug into zarrs: the state a codec binds to its data type, the zarrs
//! trait pieces and input checks, and the partial decoder and encoder
//! (registration, which names both codecs, is `crate::register`).

pub(crate) mod binding;
pub(crate) mod codec_traits;
pub(crate) mod partial_decoder;
pub(crate) mod partial_encoder;
