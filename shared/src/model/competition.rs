//! The competition area's value sets: the data providers, what a watchlist holds and what an
//! achievement counts.

crate::text_enum! {
    /// A competition data provider.
    pub enum Source { Heatsource = "heatsource", Tourindex = "tourindex" }
}

crate::text_enum! {
    /// What is watched.
    pub enum WatchKind { Athlete = "athlete", Event = "event" }
}

crate::text_enum! {
    /// Where the watched athlete or event lives: the roster, a circuit, or a provider.
    pub enum WatchSource {
        Roster = "roster",
        Circuit = "circuit",
        Heatsource = "heatsource",
        Tourindex = "tourindex",
    }
}

impl From<Source> for WatchSource {
    fn from(s: Source) -> Self {
        match s {
            Source::Heatsource => WatchSource::Heatsource,
            Source::Tourindex => WatchSource::Tourindex,
        }
    }
}

crate::text_enum! {
    /// What a rule counts, per athlete.
    pub enum Metric {
        /// Results placed 1st to 3rd (any provider, any division).
        Podiums = "podiums",
        /// Results placed 1st.
        Wins = "wins",
        /// Training sessions attended.
        Sessions = "sessions",
        /// Wearable rides (waves ridden), every session.
        Rides = "rides",
        /// The most wearable rides in one session.
        WavesInSession = "waves_in_session",
    }
}
