//! The authorization vocabulary: permission strings, feature modules, workspace types and the
//! built-in roles. Effective permissions are computed here and nowhere else.

use std::collections::BTreeSet;

crate::text_enum! {
    /// Every permission a role can carry. A role's permissions are a subset of these; the
    /// declaration order is the order lists show them in.
    pub enum Perm {
        OrgUpdate = "org.update",
        MembersRead = "members.read",
        MembersManage = "members.manage",
        MembersInvite = "members.invite",
        RolesManage = "roles.manage",
        ModulesManage = "modules.manage",
        AuditRead = "audit.read",
        BillingManage = "billing.manage",
        CalendarRead = "calendar.read",
        AthletesRead = "athletes.read",
        AthletesCreate = "athletes.create",
        AthletesUpdate = "athletes.update",
        AthletesDelete = "athletes.delete",
        FootageRead = "footage.read",
        FootageUpload = "footage.upload",
        FootageDelete = "footage.delete",
        ReviewsRead = "reviews.read",
        ReviewsManage = "reviews.manage",
        TrainingRead = "training.read",
        TrainingManage = "training.manage",
        WearableRead = "wearable.read",
        WearableManage = "wearable.manage",
        CompetitionRead = "competition.read",
        CompetitionManage = "competition.manage",
        MessagingUse = "messaging.use",
        TvManage = "tv.manage",
    }
}

/// A member's effective permissions in one workspace.
pub type PermSet = BTreeSet<Perm>;

/// Every permission's spelling, in declaration order.
pub const PERMISSIONS: &[&str] = <Perm as crate::db::TextEnum>::NAMES;

/// Feature modules a workspace can switch off. A route of a disabled module answers 403
/// `module_disabled`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Module {
    Athletes,
    Training,
    Footage,
    Reviews,
    Wearable,
    Competition,
    Messaging,
    Billing,
    Tv,
}

impl Module {
    pub const ALL: &'static [Module] = &[
        Module::Athletes,
        Module::Training,
        Module::Footage,
        Module::Reviews,
        Module::Wearable,
        Module::Competition,
        Module::Messaging,
        Module::Billing,
        Module::Tv,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Module::Athletes => "athletes",
            Module::Training => "training",
            Module::Footage => "footage",
            Module::Reviews => "reviews",
            Module::Wearable => "wearable",
            Module::Competition => "competition",
            Module::Messaging => "messaging",
            Module::Billing => "billing",
            Module::Tv => "tv",
        }
    }

    pub fn parse(s: &str) -> Option<Module> {
        Module::ALL.iter().copied().find(|m| m.key() == s)
    }
}

/// Workspace types. The type sets defaults at creation (which modules start enabled); changing
/// it later changes only the label and the defaults offered, never existing data or toggles.
pub const ORG_TYPES: &[&str] = &["coach", "club", "school", "federation"];

/// Modules disabled by default for a new workspace of `org_type`.
pub fn default_disabled_modules(org_type: &str) -> Vec<&'static str> {
    match org_type {
        // A solo coach rarely runs TVs or a marketplace at first; they can switch them on.
        "coach" => vec![Module::Tv.key()],
        _ => vec![],
    }
}

#[derive(Debug, Clone, Copy)]
pub struct BuiltinRole {
    pub key: &'static str,
    pub name: &'static str,
    pub permissions: fn() -> Vec<&'static str>,
}

fn all_permissions() -> Vec<&'static str> {
    PERMISSIONS.to_vec()
}

fn admin_permissions() -> Vec<&'static str> {
    // Everything but billing: who pays is the owner's call.
    PERMISSIONS
        .iter()
        .copied()
        .filter(|p| *p != "billing.manage")
        .collect()
}

fn coach_permissions() -> Vec<&'static str> {
    PERMISSIONS
        .iter()
        .copied()
        .filter(|p| {
            let area = p.split('.').next().unwrap_or("");
            matches!(
                area,
                "athletes"
                    | "footage"
                    | "reviews"
                    | "training"
                    | "wearable"
                    | "competition"
                    | "messaging"
                    | "calendar"
                    | "tv"
            ) || *p == "members.read"
        })
        .collect()
}

fn viewer_permissions() -> Vec<&'static str> {
    PERMISSIONS
        .iter()
        .copied()
        // The audit log shows who did what to whom: for admins, not every member.
        .filter(|p| p.ends_with(".read") && *p != "audit.read")
        .collect()
}

/// Roles every workspace gets; they cannot be deleted. `owner` also carries the right to
/// transfer ownership and delete the workspace, which no permission string grants.
pub const BUILTIN_ROLES: &[BuiltinRole] = &[
    BuiltinRole {
        key: "owner",
        name: "Owner",
        permissions: all_permissions,
    },
    BuiltinRole {
        key: "admin",
        name: "Admin",
        permissions: admin_permissions,
    },
    BuiltinRole {
        key: "coach",
        name: "Coach",
        permissions: coach_permissions,
    },
    BuiltinRole {
        key: "viewer",
        name: "Viewer",
        permissions: viewer_permissions,
    },
];

pub fn is_known_permission(p: &str) -> bool {
    PERMISSIONS.contains(&p)
}

/// The caller's effective permissions in a workspace: the role's permissions, with the
/// owner role always holding every permission (so a stale stored list cannot lock an owner out).
pub fn effective_permissions(role_key: &str, role_permissions: &[String]) -> BTreeSet<String> {
    if role_key == "owner" {
        return PERMISSIONS.iter().map(|p| p.to_string()).collect();
    }
    role_permissions
        .iter()
        .filter(|p| is_known_permission(p))
        .cloned()
        .collect()
}

crate::text_enum! {
    /// What the people around one athlete may do with that athlete's own data: the athlete's
    /// login and their guardians. No workspace role carries these; the athlete-facing routes
    /// check them.
    pub enum AthletePerm {
        ProfileRead = "profile.read",
        ProfileUpdate = "profile.update",
        TrainingReadOwn = "training.read_own",
        FootageReadOwn = "footage.read_own",
        ReviewsReadOwn = "reviews.read_own",
        MessagingUse = "messaging.use",
        /// Guardians only: give or withdraw consent for the minor.
        ConsentManage = "consent.manage",
    }
}

/// Someone who holds permissions on one athlete.
#[derive(Clone, Copy, Debug)]
pub enum OnAthlete<'a> {
    /// A workspace member (e.g. an assigned coach) with their role there.
    Member {
        role_key: &'a str,
        role_permissions: &'a [String],
    },
    /// The athlete's own login.
    AthleteLogin,
    /// A guardian of the athlete: what the athlete may, plus consent.
    Guardian,
}

/// The workspace areas whose permissions concern one athlete.
pub const ATHLETE_AREAS: &[&str] = &[
    "athletes",
    "training",
    "footage",
    "reviews",
    "wearable",
    "competition",
    "messaging",
];

/// What `who` may do with one athlete. A member's come from [`effective_permissions`], limited
/// to [`ATHLETE_AREAS`] (in permission-string order); the athlete's login and guardians hold
/// fixed [`AthletePerm`] lists (in declaration order).
pub fn permissions_on_athlete(who: OnAthlete<'_>) -> Vec<String> {
    match who {
        OnAthlete::Member {
            role_key,
            role_permissions,
        } => effective_permissions(role_key, role_permissions)
            .into_iter()
            .filter(|p| ATHLETE_AREAS.contains(&p.split('.').next().unwrap_or("")))
            .collect(),
        OnAthlete::AthleteLogin => AthletePerm::ALL
            .iter()
            .filter(|p| **p != AthletePerm::ConsentManage)
            .map(|p| p.to_string())
            .collect(),
        OnAthlete::Guardian => AthletePerm::ALL.iter().map(|p| p.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_roles_only_use_known_permissions() {
        for r in BUILTIN_ROLES {
            for p in (r.permissions)() {
                assert!(is_known_permission(p), "{} has unknown {p}", r.key);
            }
        }
    }

    #[test]
    fn viewer_cannot_create_athletes_and_coach_can() {
        let viewer: Vec<String> = viewer_permissions().iter().map(|s| s.to_string()).collect();
        let coach: Vec<String> = coach_permissions().iter().map(|s| s.to_string()).collect();
        assert!(!effective_permissions("viewer", &viewer).contains("athletes.create"));
        assert!(effective_permissions("coach", &coach).contains("athletes.create"));
        assert!(!effective_permissions("coach", &coach).contains("roles.manage"));
        assert!(effective_permissions("owner", &[]).contains("billing.manage"));
    }

    #[test]
    fn permissions_on_an_athlete_for_members_logins_and_guardians() {
        let coach: Vec<String> = coach_permissions().iter().map(|s| s.to_string()).collect();
        let on_coach = permissions_on_athlete(OnAthlete::Member {
            role_key: "coach",
            role_permissions: &coach,
        });
        assert!(on_coach.contains(&"athletes.update".to_string()));
        assert!(on_coach.contains(&"messaging.use".to_string()));
        // Workspace matters (members, calendar, TVs) are not about the athlete.
        assert!(!on_coach.iter().any(|p| p.starts_with("members.")));
        assert!(!on_coach.contains(&"tv.manage".to_string()));
        let mut sorted = on_coach.clone();
        sorted.sort();
        assert_eq!(on_coach, sorted);

        let owner = permissions_on_athlete(OnAthlete::Member {
            role_key: "owner",
            role_permissions: &[],
        });
        assert!(owner.contains(&"athletes.delete".to_string()));
        assert!(!owner.contains(&"billing.manage".to_string()));
        let stale = ["athletes.read".to_string(), "athletes.fly".to_string()];
        assert_eq!(
            permissions_on_athlete(OnAthlete::Member {
                role_key: "custom",
                role_permissions: &stale,
            }),
            vec!["athletes.read"]
        );

        let athlete = permissions_on_athlete(OnAthlete::AthleteLogin);
        let guardian = permissions_on_athlete(OnAthlete::Guardian);
        assert_eq!(
            athlete,
            [
                "profile.read",
                "profile.update",
                "training.read_own",
                "footage.read_own",
                "reviews.read_own",
                "messaging.use"
            ]
        );
        assert_eq!(guardian[..athlete.len()], athlete[..]);
        assert_eq!(guardian.last().map(String::as_str), Some("consent.manage"));
    }
}
