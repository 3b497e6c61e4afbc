//! Integration tests of netmeasure (one binary, one module per topic).

mod quantile;
mod table;
