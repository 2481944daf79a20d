//! Everything the athlete's profile page shows, read at once: the athlete, their coaches,
//! guardians and consent, their newest invite, provider links and training attendance.

use super::consent::{self, ConsentStatus};
use super::{InWorkspace, load};
use crate::db::{Db, Id};
use crate::error::Result;
use crate::repo::athletes::{self, Assignment, Athlete, Guardian, Invite, ProviderLink};
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
