# Sourced by build-web.sh and test.sh: the release profile of the wasm builds (the page's build
# and the browser tests' build share these settings, so they share their compiled dependencies).
# Natively the release profile stays as Cargo.toml has it.
#
# Size: fat link-time optimization drops and merges code across crates that the page never
# reaches (burn compiles every op for each backend it is given), and symbols are stripped.
# (wasm-bindgen then warns that it cannot read the target_features section; it falls back to
# glue without reference types, which every browser runs. Binaryen's wasm-opt, tried on top,
# made the gzip size larger, 4.22 vs 4.13 MB, and Debian's version 108 broke the function
# table, so it is not used.)
export CARGO_PROFILE_RELEASE_LTO=fat
export CARGO_PROFILE_RELEASE_STRIP=symbols
