//! Each codec's exact function of one element, both ways, as the specifications define them: what
//! the kernels must give, what the chain checks follow ([`crate::chain`]) and what the codecs run
//! where no kernel applies. Below the chain and the codecs; it uses only the numeric model.

pub(crate) mod cast_value;
pub(crate) mod scalar_map;
pub(crate) mod scale_offset;
