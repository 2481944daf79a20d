//! Everything the athlete's profile page shows, read at once: the athlete, their coaches,
//! guardians and consent, their newest invite, provider links and training attendance; and
//! what an athlete or a guardian sees of the athletes they are or look after ([`mine`]).

use super::consent::{self, ConsentStatus};
use super::{InWorkspace, load};
use crate::db::{Db, Id};
use crate::error::Result;
use crate::repo::athletes::{self, Assignment, Athlete, Guardian, Invite, Linked, ProviderLink};
use crate::repo::training::{self, Attendance};

/// How many training sessions the profile lists.
pub const ATTENDANCE_SHOWN: i64 = 20;

pub struct Profile {
    pub athlete: Athlete,
    pub coaches: Vec<Assignment>,
    pub guardians: Vec<Guardian>,
    pub consent: ConsentStatus,
    pub invite: Option<Invite>,
    pub links: Vec<ProviderLink>,
    pub attendance: Vec<Attendance>,
}

pub async fn get(ws: &InWorkspace, db: &Db, id: Id) -> Result<Profile> {
    let athlete = {
        let mut c = db.acquire().await?;
        load(&mut c, ws.org_id, id).await?
    };
    let consent = consent::get(ws, db, id).await?;
    let mut c = db.acquire().await?;
    Ok(Profile {
        coaches: athletes::assignments(&mut c, ws.org_id, id).await?,
        guardians: athletes::guardians(&mut c, id).await?,
        invite: athletes::latest_invite(&mut c, id).await?,
        links: athletes::provider_links(&mut c, id).await?,
        attendance: training::attendance_of(&mut c, ws.org_id, id, ATTENDANCE_SHOWN).await?,
        consent,
        athlete,
    })
}

/// One athlete a signed-in user is, or looks after as a guardian, with what they may see:
/// the coaches and the training sessions (never the coaches' notes or other athletes).
pub struct Mine {
    pub linked: Linked,
    pub coaches: Vec<Assignment>,
    pub attendance: Vec<Attendance>,
}

/// The athletes `user` is or looks after, in every workspace (not archived).
pub async fn mine(db: &Db, user: Id) -> Result<Vec<Mine>> {
    let mut c = db.acquire().await?;
    let linked = athletes::linked_to_user(&mut c, user).await?;
    let mut out = Vec::with_capacity(linked.len());
    for l in linked {
        let (org, id) = (l.athlete.org_id, l.athlete.id);
        out.push(Mine {
            coaches: athletes::assignments(&mut c, org, id).await?,
            attendance: training::attendance_of(&mut c, org, id, ATTENDANCE_SHOWN).await?,
            linked: l,
        });
    }
    Ok(out)
}
