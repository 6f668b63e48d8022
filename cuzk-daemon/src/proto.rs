//! The generated `cuzk.v1` messages, server and client.
#![allow(clippy::all, missing_docs)]

tonic::include_proto!("cuzk.v1");
