//! Tests of the shell verdict families.
