//! Calls per minute per client address, as the hosted servers limit them (60 by default), and
//! for all clients together [`ALL_CLIENTS`] times that: the address is the connection's source,
//! and every loopback address (127.0.0.0/8) is one a local process can pick, so the per-address
//! limit alone would let one process multiply its allowance by hundreds.
//!
//! The generic cell rate algorithm, in integer time: each address has a theoretical arrival time
//! that every call pushes one interval (a minute / rate) later; a request is refused when that
//! would put it more than a minute ahead of now. A full minute's allowance may come at once, and
//! it comes back at the steady rate. A batch costs its number of messages, so batching does not
//! multiply the allowance.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

const WINDOW: Duration = Duration::from_secs(60);
/// Past this many addresses, those whose allowance is whole again are forgotten (an absent
/// address has a whole allowance, so nothing changes for them).
const REMEMBERED: usize = 4096;

/// All clients together may make this many times one client's calls.
pub(crate) const ALL_CLIENTS: u32 = 5;

pub(super) struct RateLimit {
    per_minute: u32,
    interval: Duration,
    due: HashMap<IpAddr, Instant>,
    /// The same cell rate for every client together.
    all: Cell,
}

/// The theoretical arrival time of all clients together.
struct Cell {
    interval: Duration,
    due: Option<Instant>,
}

/// When `cost` more calls at `interval` each are due after `due`, or how long to wait first
/// (whole seconds, at least one) when that is more than a minute ahead of `now`.
fn next_due(
    interval: Duration,
    due: Option<Instant>,
    cost: u32,
    now: Instant,
) -> Result<Instant, u64> {
    let due = due.filter(|d| *d > now).unwrap_or(now);
    let next = due + interval * cost;
    let ahead = next - now;
    if ahead > WINDOW {
        let wait = ahead - WINDOW;
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        return Err(secs.max(1));
    }
    Ok(next)
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// Try again after this long (whole seconds, at least one).
    RetryAfter(u64),
    /// All clients together are over their allowance: try again after this long.
    Busy(u64),
    /// The request alone costs more than a minute's allowance: it can never pass whole.
    TooLarge,
}

impl RateLimit {
    pub(super) fn new(per_minute: u32) -> Self {
        let per_minute = per_minute.max(1);
        Self {
            per_minute,
            interval: WINDOW / per_minute,
            due: HashMap::new(),
            all: Cell {
                interval: WINDOW / per_minute.saturating_mul(ALL_CLIENTS),
                due: None,
            },
        }
    }

    pub(super) fn per_minute(&self) -> u32 {
        self.per_minute
    }

    /// Calls per minute from every client together.
    pub(super) fn all_clients_per_minute(&self) -> u32 {
        self.per_minute.saturating_mul(ALL_CLIENTS)
    }

    /// Charge `cost` calls to `client` at `now`, or say when it may try again (nothing charged).
    pub(super) fn charge(
        &mut self,
        client: IpAddr,
        cost: u32,
        now: Instant,
    ) -> Result<(), Refused> {
        if cost > self.per_minute {
            return Err(Refused::TooLarge);
        }
        if self.due.len() >= REMEMBERED {
            self.due.retain(|_, due| *due > now);
        }
        let next = next_due(self.interval, self.due.get(&client).copied(), cost, now)
            .map_err(Refused::RetryAfter)?;
        let all_next =
            next_due(self.all.interval, self.all.due, cost, now).map_err(Refused::Busy)?;
        self.due.insert(client, next);
        self.all.due = Some(all_next);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    const B: IpAddr = IpAddr::V6(std::net::Ipv6Addr::LOCALHOST);

    #[test]
    fn a_minutes_allowance_at_once_then_the_steady_rate() {
        let mut r = RateLimit::new(60);
        let t = Instant::now();
        for _ in 0..60 {
            r.charge(A, 1, t).unwrap();
        }
        assert_eq!(r.charge(A, 1, t), Err(Refused::RetryAfter(1)));
        // Another client has its own allowance.
        r.charge(B, 1, t).unwrap();
        // One call comes back every second.
        r.charge(A, 1, t + Duration::from_secs(1)).unwrap();
        assert_eq!(
            r.charge(A, 1, t + Duration::from_secs(1)),
            Err(Refused::RetryAfter(1))
        );
        // A minute later the whole allowance is back.
        let later = t + Duration::from_secs(61);
        for _ in 0..60 {
            r.charge(A, 1, later).unwrap();
        }
        assert!(r.charge(A, 1, later).is_err());
    }

    #[test]
    fn a_batch_costs_its_calls_and_a_refusal_charges_nothing() {
        let mut r = RateLimit::new(10);
        let t = Instant::now();
        r.charge(A, 8, t).unwrap();
        // Three more would be 11: wait for one interval (6 s).
        assert_eq!(r.charge(A, 3, t), Err(Refused::RetryAfter(6)));
        r.charge(A, 2, t).unwrap();
        assert_eq!(r.charge(A, 11, t), Err(Refused::TooLarge));
    }

    /// 300 loopback addresses got 300 allowances (issue 20): all clients together get
    /// `ALL_CLIENTS` times one client's, and a refusal by either charges nothing.
    #[test]
    fn many_addresses_share_one_global_allowance() {
        let mut r = RateLimit::new(60);
        let t = Instant::now();
        let loopback = |i: u32| IpAddr::V4(std::net::Ipv4Addr::from(0x7f00_0000 + i));
        for i in 0..60 * ALL_CLIENTS {
            r.charge(loopback(i % 300 + 1), 1, t).unwrap();
        }
        assert_eq!(r.all_clients_per_minute(), 300);
        // A fresh address with its own allowance whole waits for the global one.
        assert_eq!(r.charge(loopback(301), 1, t), Err(Refused::Busy(1)));
        assert_eq!(r.charge(loopback(301), 1, t), Err(Refused::Busy(1)));
        // Five calls come back every second.
        let later = t + Duration::from_secs(1);
        for _ in 0..5 {
            r.charge(loopback(301), 1, later).unwrap();
        }
        assert_eq!(r.charge(loopback(302), 1, later), Err(Refused::Busy(1)));
    }

    #[test]
    fn the_retry_after_rounds_up() {
        let mut r = RateLimit::new(7); // an interval of 8.57… s
        let t = Instant::now();
        r.charge(A, 7, t).unwrap();
        assert_eq!(r.charge(A, 1, t), Err(Refused::RetryAfter(9)));
    }
}
