//! Calls per minute per client address, as the hosted servers limit them (60 by default).
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

pub(super) struct RateLimit {
    per_minute: u32,
    interval: Duration,
    due: HashMap<IpAddr, Instant>,
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// Try again after this long (whole seconds, at least one).
    RetryAfter(u64),
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
        }
    }

    pub(super) fn per_minute(&self) -> u32 {
        self.per_minute
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
        let due = self
            .due
            .get(&client)
            .copied()
            .filter(|d| *d > now)
            .unwrap_or(now);
        let next = due + self.interval * cost;
        let ahead = next - now;
        if ahead > WINDOW {
            let wait = ahead - WINDOW;
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            return Err(Refused::RetryAfter(secs.max(1)));
        }
        self.due.insert(client, next);
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

    #[test]
    fn the_retry_after_rounds_up() {
        let mut r = RateLimit::new(7); // an interval of 8.57… s
        let t = Instant::now();
        r.charge(A, 7, t).unwrap();
        assert_eq!(r.charge(A, 1, t), Err(Refused::RetryAfter(9)));
    }
}
