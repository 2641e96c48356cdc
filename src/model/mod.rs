//! Models: the decoder/encoder [`transformer`] of every chapter and its [`init`] schemes.

pub mod init;
pub mod transformer;
