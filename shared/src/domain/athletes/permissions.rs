//! Who may do what with one athlete: their own login, their coaches, their guardians. The
//! rules are in `authz::permissions_on_athlete`; this gathers the people.

use super::{PrincipalKind, load};
use crate::authz::{OnAthlete, permissions_on_athlete};
use crate::db::{Db, Id};
use crate::domain::InWorkspace;
use crate::error::{Error, Result};
use crate::minors;
use crate::repo::{athletes, orgs, users};

/// One person's permissions on the athlete.
#[derive(Clone, Debug)]
pub struct Principal {
    pub user_id: Option<Id>,
    pub name: Option<String>,
    pub kind: PrincipalKind,
    /// For coaches: head or assistant; for guardians: the relationship.
    pub role: Option<String>,
    pub permissions: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct AthletePermissions {
    pub athlete_id: Id,
    pub minor: bool,
    /// The age under which a login needs a guardian, in this workspace's country.
    pub consent_age: u32,
    pub guardian_consent: bool,
    /// The athlete's own login; `None` until claimed.
    pub athlete: Option<Principal>,
    pub coaches: Vec<Principal>,
    pub guardians: Vec<Principal>,
}

/// The athlete's, their coaches' and their guardians' effective permissions on the athlete. A
/// coach who is no longer a member holds none.
pub async fn of_athlete(ws: &InWorkspace, db: &Db, id: Id) -> Result<AthletePermissions> {
    let mut c = db.acquire().await?;
    let a = load(&mut c, ws.org_id, id).await?;
    let org = orgs::by_id(&mut c, ws.org_id)
        .await?
        .ok_or_else(|| Error::not_found("workspace"))?;
    let consent = athletes::has_active_consent(&mut c, a.id).await?;
    let athlete = match a.user_id {
        Some(u) => Some(Principal {
            user_id: Some(u),
            name: users::by_id(&mut c, u).await?.map(|u| u.name),
            kind: PrincipalKind::Athlete,
            role: None,
            permissions: permissions_on_athlete(OnAthlete::AthleteLogin),
        }),
        None => None,
    };
    let mut coaches = vec![];
    for asg in athletes::assignments(&mut c, ws.org_id, a.id).await? {
        let permissions = match orgs::membership(&mut c, asg.user_id, ws.org_id).await? {
            Some(m) => permissions_on_athlete(OnAthlete::Member {
                role_key: &m.role_key,
                role_permissions: &m.permissions.0,
            }),
            None => vec![],
        };
        coaches.push(Principal {
            user_id: Some(asg.user_id),
            name: Some(asg.name),
            kind: PrincipalKind::Coach,
            role: Some(asg.role.to_string()),
            permissions,
        });
    }
    let guardians = athletes::guardians(&mut c, a.id)
        .await?
        .into_iter()
        .map(|g| Principal {
            user_id: Some(g.user_id),
            name: Some(g.name),
            kind: PrincipalKind::Guardian,
            role: Some(g.relationship.to_string()),
            permissions: permissions_on_athlete(OnAthlete::Guardian),
        })
        .collect();
    Ok(AthletePermissions {
        athlete_id: a.id,
        minor: minors::is_minor(a.birth_date),
        consent_age: minors::consent_age(org.country.as_deref()),
        guardian_consent: consent,
        athlete,
        coaches,
        guardians,
    })
}
