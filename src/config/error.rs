//! What a rejected value says.

use std::fmt;

/// A rejected value: names the parameter, the value and what is allowed, and carries the safe
/// value that was (or would be) used instead. A rule over the whole configuration (the memory
/// budget, [`RunConfig::check_memory`]) has an empty `key` and its message in `allowed`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The parameter key (or the unknown key); empty for a rule over the whole configuration.
    pub key: String,
    /// The rejected text.
    pub value: String,
    /// What is allowed.
    pub allowed: String,
    /// The value used instead, as text (`None` for an unknown key).
    pub safe: Option<String>,
}

/// A rule over the whole configuration, or what keeps a run from starting, said in `message`.
impl From<String> for ConfigError {
    fn from(message: String) -> ConfigError {
        ConfigError { key: String::new(), value: String::new(), allowed: message, safe: None }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            return f.write_str(&self.allowed);
        }
        match &self.safe {
            Some(safe) => {
                write!(f, "invalid value {:?} for '{}': allowed {}; using {}", self.value, self.key, self.allowed, safe)
            }
            None => write!(f, "unknown parameter '{}' (value {:?}); known: {}", self.key, self.value, self.allowed),
        }
    }
}

impl std::error::Error for ConfigError {}
