//! Tests of the inline-code facts.
