//! Athletes, athlete invites with the age gate, guardians, import, merge, publish (issue 5).
