//! Both codecs through the public zarrs API: the conformance vectors, arrays written and read
//! whole, in part and in shards, configurations and values refused, the data-safety rules, chains
//! decided as a whole, partial writes and faults.

mod array;
mod array_errors;
mod arrays;
mod chains;
mod data_safety;
mod error_kinds;
mod faults;
mod fill_value_safety;
mod partial_write;
mod vectors;
