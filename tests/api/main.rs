//! The crate as a program uses it: typed constructors and errors, registration by name, and the
//! README's example.

mod program;
mod readme;
mod registration;
