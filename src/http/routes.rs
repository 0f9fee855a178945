//! The HTTP routes of the registry: GET for a read, POST for a write, at the path the
//! registry names (SPEC's spelling) or `/api/v1/` + the dotted name with slashes.

use crate::ops::{Operation, Registry};

/// Where every API route lives.
pub const API: &str = "/api/v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// One route: an operation at a method and path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub method: Method,
    /// With `{field}` segments, e.g. `/api/v1/questions/{id}/resolve`.
    pub path: String,
    pub operation: &'static str,
}

impl Route {
    /// The names of the path's `{field}` segments: request fields the path fills.
    pub fn path_params(&self) -> Vec<&str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect()
    }

    /// The values of the path's `{field}` segments in `path`, when it matches.
    pub fn match_path<'a>(&self, path: &'a str) -> Option<Vec<(&str, &'a str)>> {
        let template: Vec<&str> = self.path.split('/').collect();
        let actual: Vec<&str> = path.split('/').collect();
        if template.len() != actual.len() {
            return None;
        }
        let mut params = Vec::new();
        for (t, a) in template.iter().zip(&actual) {
            match t.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => params.push((name, *a)),
                None if t == a => {}
                None => return None,
            }
        }
        Some(params)
    }
}

/// An operation HTTP offers: every one but the entry points (hooks, `setup`). Human acts
/// are offered, for the cockpit, behind the token like every write.
pub fn offered(operation: &Operation) -> bool {
    !operation.entry_point
}

/// The route of an operation: POST (behind the token) for a write and for an admin act.
pub fn route(operation: &Operation) -> Route {
    Route {
        method: if operation.writes || operation.admin {
            Method::Post
        } else {
            Method::Get
        },
        path: match operation.http_path {
            Some(path) => path.to_owned(),
            None => format!("{API}/{}", operation.name.replace('.', "/")),
        },
        operation: operation.name,
    }
}

/// Every route of `registry`, in registry order: a pure function of the registry.
pub fn routes(registry: &Registry) -> Vec<Route> {
    registry
        .iter()
        .filter(|op| offered(op))
        .map(route)
        .collect()
}
