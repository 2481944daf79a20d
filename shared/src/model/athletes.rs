//! The closed value sets of the athletes area, stored as TEXT and sent as the same strings.

crate::text_enum! {
    /// Where an athlete is in their life cycle. Archived athletes keep their data but leave
    /// lists, sessions, messaging and the public profile.
    pub enum AthleteStatus {
        Active = "active",
        /// Self-enrolled, waiting for the club.
        Pending = "pending",
        Archived = "archived",
    }
}

crate::text_enum! {
    /// How an athlete came onto the roster.
    pub enum AthleteSource {
        Manual = "manual",
        Import = "import",
        Invite = "invite",
        Enrollment = "enrollment",
        /// Imported from a competition provider's profile.
        Provider = "provider",
    }
}

crate::text_enum! {
    /// Which foot leads on the board.
    pub enum Stance { Regular = "regular", Goofy = "goofy" }
}

crate::text_enum! {
    /// A coach's rating of the athlete.
    pub enum Level {
        Beginner = "beginner",
        Intermediate = "intermediate",
        Advanced = "advanced",
        Pro = "pro",
    }
}

crate::text_enum! {
    /// A coach's part in an athlete's coaching.
    pub enum CoachRole { Head = "head", Assistant = "assistant" }
}

crate::text_enum! {
    /// A guardian's relationship to the athlete.
    pub enum Relationship {
        Parent = "parent",
        LegalGuardian = "legal_guardian",
        Other = "other",
    }
}

crate::text_enum! {
    /// How a guardian's consent was given.
    pub enum ConsentMethod {
        /// The guardian used the athlete's invite link (`POST /api/invite/guardian`).
        GuardianInvite = "guardian_invite",
        /// The guardian filled in the club's self-enrollment form.
        EnrollmentForm = "enrollment_form",
        Paper = "paper",
        Email = "email",
        InPerson = "in_person",
        Phone = "phone",
    }
}

impl ConsentMethod {
    /// The methods a member may record by hand (the others are recorded by the service).
    pub const RECORDABLE: &'static [ConsentMethod] = &[
        ConsentMethod::Paper,
        ConsentMethod::Email,
        ConsentMethod::InPerson,
        ConsentMethod::Phone,
    ];
}

crate::text_enum! {
    /// What an invite link is worth now (the public preview).
    pub enum InviteStatus as AthleteInviteStatus { Valid = "valid", Used = "used", Expired = "expired" }
}

crate::text_enum! {
    /// Who holds permissions on an athlete (`GET /api/athletes/{id}/permissions`).
    pub enum PrincipalKind { Athlete = "athlete", Coach = "coach", Guardian = "guardian" }
}
