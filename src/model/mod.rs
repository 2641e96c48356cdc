//! Models: the decoder/encoder [`transformer`] of every chapter, chapter 2's [`emb_mlp`], and
//! their [`init`] schemes.

pub mod emb_mlp;
pub mod init;
pub mod transformer;
