//! How much memory work may take, checked before a large allocation so that work too big for
//! the machine is refused with the numbers instead of aborting: the memory the machine has
//! available now (Linux: `MemAvailable` in `/proc/meminfo`), the process's address-space limit
//! (`ulimit -v`), and the limit the user set (`--max-memory`), whichever is least.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

/// The user's limit in bytes; 0: none set.
static USER_LIMIT: AtomicU64 = AtomicU64::new(0);

/// Sets the limit work may take (`--max-memory`), in bytes.
pub fn set_limit(bytes: u64) {
    USER_LIMIT.store(bytes, Ordering::Relaxed);
}

/// What bounds the memory of work started now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The machine's available memory, where the system tells it.
    pub available: Option<u64>,
    /// The process's address-space limit (`ulimit -v`), where one is set.
    pub address_space: Option<u64>,
    /// The user's limit (`--max-memory`), where one is set.
    pub user: Option<u64>,
}

impl Budget {
    /// The budget now.
    pub fn now() -> Budget {
        let user = USER_LIMIT.load(Ordering::Relaxed);
        Budget {
            available: available(),
            address_space: address_space_limit(),
            user: (user > 0).then_some(user),
        }
    }

    /// The least of the bounds (`None`: nothing is known, nothing is refused).
    pub fn bytes(&self) -> Option<u64> {
        [self.available, self.address_space, self.user]
            .into_iter()
            .flatten()
            .min()
    }

    /// Refuses `needs` bytes for `what` where they exceed the budget.
    pub fn check(&self, what: impl FnOnce() -> String, needs: u64) -> Result<(), MemoryRefusal> {
        match self.bytes() {
            Some(have) if needs > have => Err(MemoryRefusal {
                what: what(),
                needs,
                budget: *self,
                hint: String::new(),
            }),
            _ => Ok(()),
        }
    }
}

/// Refuses `needs` bytes for `what` where they exceed the budget now.
pub fn check(what: impl FnOnce() -> String, needs: u64) -> Result<(), MemoryRefusal> {
    Budget::now().check(what, needs)
}

/// Work refused because it needs more memory than it may take.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub struct MemoryRefusal {
    /// What needs it ("Fox & Hounds 14x14's index of positions").
    pub what: String,
    pub needs: u64,
    pub budget: Budget,
    /// What would take less, if anything ("--no-tables solves with less").
    pub hint: String,
}

impl MemoryRefusal {
    /// The refusal with a way out.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self
    }
}

impl fmt::Display for MemoryRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} needs about {}", self.what, human(self.needs))?;
        let mut have = Vec::new();
        if let Some(b) = self.budget.available {
            have.push(format!("this machine has {} available", human(b)));
        }
        if let Some(b) = self.budget.address_space {
            have.push(format!(
                "the process may take {} more (ulimit -v)",
                human(b)
            ));
        }
        if let Some(b) = self.budget.user {
            have.push(format!("the limit set by --max-memory is {}", human(b)));
        }
        write!(f, "; {}", have.join(", and "))?;
        if !self.hint.is_empty() {
            write!(f, ". {}", self.hint)?;
        }
        Ok(())
    }
}

/// The machine's available memory (Linux: `MemAvailable`), if the system tells it.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_available(&text)
}

fn meminfo_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The address space the process may still take under its limit (`ulimit -v`; Linux:
/// `/proc/self/limits` less `VmSize` of `/proc/self/status`), if a limit is set.
pub fn address_space_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let limit = limits_address_space(&text)?;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let used = status
        .lines()
        .find(|l| l.starts_with("VmSize:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024);
    Some(limit.saturating_sub(used))
}

fn limits_address_space(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    // "Max address space   <soft>   <hard>   bytes": the soft limit binds.
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Bytes as people read them: "13.8 GB", "512 MB", "900 bytes" (powers of 1000).
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes >= 1_000_000_000_000 {
        format!("{:.1} TB", b / 1e12)
    } else if bytes >= 1_000_000_000 {
        format!("{:.1} GB", b / 1e9)
    } else if bytes >= 1_000_000 {
        format!("{:.0} MB", b / 1e6)
    } else if bytes >= 1_000 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{bytes} bytes")
    }
}

/// A size as a user writes it: `12G`, `12GB`, `1.5 GiB`, `500M`, `800k`, or bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("{text}: a size such as 12G, 500M or 1.5GiB")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text}: a size such as 12G, 500M or 1.5GiB"))?;
    let bytes = value * scale;
    if !(1.0..=1.8e19).contains(&bytes) {
        return Err(format!(
            "{text}: a size such as 12G, 500M or 1.5GiB, from 1 byte to 18 EB"
        ));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_people_write_them() {
        assert_eq!(parse_size("12G"), Ok(12_000_000_000));
        assert_eq!(parse_size("12 GB"), Ok(12_000_000_000));
        assert_eq!(parse_size("1.5GiB"), Ok(1_610_612_736));
        assert_eq!(parse_size("500m"), Ok(500_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        for bad in ["", "G", "-1G", "12Q", "1e3", "0", "nan", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(human(13_834_413_152), "13.8 GB");
        assert_eq!(human(1_429_702_652_400), "1.4 TB");
        assert_eq!(human(512), "512 bytes");
    }

    #[test]
    fn the_least_bound_refuses_with_every_number() {
        let text = "MemTotal:  24000000 kB\nMemFree: 100 kB\nMemAvailable:   23000000 kB\n";
        assert_eq!(meminfo_available(text), Some(23_000_000 * 1024));
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max address space         4294967296           unlimited            bytes\n";
        assert_eq!(limits_address_space(limits), Some(4_294_967_296));
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(limits_address_space(unlimited), None);

        let budget = Budget {
            available: Some(23_000_000_000),
            address_space: None,
            user: Some(2_000_000_000),
        };
        assert_eq!(budget.bytes(), Some(2_000_000_000));
        assert!(budget.check(|| "x".into(), 2_000_000_000).is_ok());
        let e = budget
            .check(|| "Fox & Hounds 14x14's index".into(), 13_834_413_152)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "Fox & Hounds 14x14's index needs about 13.8 GB; this machine has 23.0 GB available, \
             and the limit set by --max-memory is 2.0 GB"
        );
        let nothing_known = Budget {
            available: None,
            address_space: None,
            user: None,
        };
        assert!(nothing_known.check(|| "x".into(), u64::MAX).is_ok());
    }
}
