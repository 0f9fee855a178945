//! The operation registry (SPEC §10): every capability is one operation — a dotted name,
//! a request type, a result type (both with JSON Schemas generated from the types), flags,
//! a one-line summary and one function `fn(&Ctx, Request) -> Result<Result, Error>`.
//! The CLI, MCP and HTTP surfaces are generated from this list; none holds logic.
//!
//! There is one call path: every surface runs an operation through its entry, as JSON
//! ([`Operation::invoke`]: MCP, HTTP) or typed ([`Registry::call`]: the CLI, the cockpit),
//! and both go through [`Operation::around`], which does what every operation needs
//! done around it, as its entry declares: the `MAJORDOMUS_TIMING` phase named after the
//! operation, and the initialised check (refused `repository.initialised` before the
//! function runs, unless the entry says [`Operation::anywhere`]). How a failure reaches
//! the caller is declared too: a provider hook ([`Operation::provider_hook`]) never fails
//! its agent client (the CLI's exit-code mapping reads the flag).
//!
//! Adding an operation: a request type (`Deserialize + JsonSchema`), a function taking the
//! context and the request, a result type that implements [`Report`] (its verdict and a
//! readable text, written in the render layer above this one), and one line in
//! [`Registry::standard`].

mod standard;

use std::any::Any;
use std::sync::{Arc, OnceLock};

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Ctx;
use crate::error::{Error, UsageError};
pub use crate::model::Verdict;

/// What every operation result is: serialisable, with a schema, a verdict and a text.
pub trait Report: Serialize + JsonSchema {
    /// What the result means for whoever asked (default: nothing needs attention).
    fn verdict(&self) -> Verdict {
        Verdict::Pass
    }
    /// The result as a person reads it.
    fn text(&self) -> String;
    /// A remark beside the result (the CLI prints it on stderr).
    fn note(&self) -> Option<String> {
        None
    }
}

/// An operation's result through the registry: the JSON value, its text and its verdict.
#[derive(Debug, Clone)]
pub struct Invoked {
    pub value: serde_json::Value,
    pub text: String,
    pub note: Option<String>,
    pub verdict: Verdict,
}

impl Invoked {
    /// A result as every surface receives it.
    fn of<R: Report>(result: &R) -> Invoked {
        Invoked {
            value: serde_json::to_value(result).expect("results serialise"),
            text: result.text(),
            note: result.note(),
            verdict: result.verdict(),
        }
    }
}

type Invoke = dyn Fn(&Operation, &Ctx, serde_json::Value) -> Result<Invoked, Error> + Send + Sync;

/// An entry's typed request in, its result out as [`Invoked`] (the request behind `Any`).
type Reported = dyn Fn(&Operation, &Ctx, Box<dyn Any>) -> Result<Invoked, Error> + Send + Sync;

/// The typed function an entry serves, as [`op`] stored it: `fn(&Ctx, Req) -> Result<Res,
/// Error>` behind `Any`, so [`Operation::call`] can hand it a typed request.
type Typed = dyn Any + Send + Sync;

/// One registry entry.
#[derive(Clone)]
pub struct Operation {
    /// Dotted name, e.g. `decision.record`.
    pub name: &'static str,
    /// One line saying what it does.
    pub summary: &'static str,
    /// The CLI command that runs it (surface metadata), e.g. `question resolve`.
    pub cli: &'static str,
    /// It writes to the repository's memory.
    pub writes: bool,
    /// A human act (promote, reject): never offered to agents.
    pub human_act: bool,
    /// It changes how the repository is wired (`init`, `hooks install|uninstall`,
    /// `rules vendor update`): never offered to agents, so none can remove the push gate;
    /// over HTTP it needs the token like every write.
    pub admin: bool,
    /// An entry point git or an agent client calls (a hook), or the command that wires
    /// one (`setup`): not a capability to offer on MCP or HTTP.
    pub entry_point: bool,
    /// A read for the person deciding a human act (`knowledge verified`, the listing
    /// `knowledge supersede|retire` select from): not offered to agents, who read verified
    /// knowledge through `recall`; over HTTP and the CLI like any read.
    pub people_only: bool,
    /// Running it twice with the same request changes nothing more than running it once
    /// (every read is; a write says so). MCP's `idempotentHint`.
    pub idempotent: bool,
    /// It removes or rewrites what is there rather than only adding. MCP's
    /// `destructiveHint`.
    pub destructive: bool,
    /// It reaches beyond this repository (advisors: other programs, remote models).
    /// MCP's `openWorldHint`.
    pub open_world: bool,
    /// It runs in a repository `majordomus init` has not set up (`init` itself, `env`,
    /// `setup`, the hooks, which step aside there). Every other operation is refused
    /// `repository.initialised` by the registry before its function runs.
    pub anywhere: bool,
    /// A provider hook (an agent client's session-start, session-end, compact): it never
    /// fails its client. A failure, even a usage error in how it was wired, is reported
    /// on stderr and exits 0 (docs/HOOKS.md); the same failure of any other operation
    /// keeps its exit code.
    pub never_fails: bool,
    /// Surface metadata: the MCP tool name, where SPEC spells it otherwise than
    /// `majordomus_` + the name with dots as underscores.
    pub mcp_name: Option<&'static str>,
    /// Surface metadata: the HTTP route path, where SPEC spells it otherwise than
    /// `/api/v1/` + the name with dots as slashes; `{field}` segments fill request fields.
    pub http_path: Option<&'static str>,
    request_schema: fn() -> serde_json::Value,
    result_schema: fn() -> serde_json::Value,
    request_in: fn(&mut SchemaGenerator) -> Schema,
    result_in: fn(&mut SchemaGenerator) -> Schema,
    invoke: Arc<Invoke>,
    reported: Arc<Reported>,
    typed: Arc<Typed>,
}

impl std::fmt::Debug for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operation")
            .field("name", &self.name)
            .field("cli", &self.cli)
            .field("writes", &self.writes)
            .field("human_act", &self.human_act)
            .field("admin", &self.admin)
            .field("entry_point", &self.entry_point)
            .field("people_only", &self.people_only)
            .field("anywhere", &self.anywhere)
            .field("never_fails", &self.never_fails)
            .finish()
    }
}

/// How a request is read: serde's deserialising view (a field with a default may be left
/// out).
pub fn request_settings() -> SchemaSettings {
    SchemaSettings::draft2020_12()
}

/// How a result is written: serde's serialising view, so a field serde skips when empty
/// (`skip_serializing_if`) is optional and every other field is required, as it is
/// always there (SPEC §10: a result always validates against its published schema).
pub fn result_settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().for_serialize()
}

/// The JSON Schema of `T` under `settings`, as an object schema: a schema whose variants
/// are all objects (a tagged enum) says so at its root too, as MCP and OpenAPI want.
fn object_schema<T: JsonSchema>(settings: SchemaSettings) -> serde_json::Value {
    let mut schema = serde_json::to_value(settings.into_generator().into_root_schema_for::<T>())
        .expect("schemas serialise");
    if let Some(root) = schema.as_object_mut()
        && !root.contains_key("type")
    {
        let variants = ["oneOf", "anyOf"]
            .iter()
            .find_map(|k| root.get(*k))
            .and_then(|v| v.as_array());
        let all_objects = variants.is_some_and(|vs| {
            vs.iter().all(|v| {
                v.get("type").and_then(|t| t.as_str()) == Some("object")
                    || v.get("$ref").is_some()
                    || v.get("allOf").is_some()
            })
        });
        if all_objects {
            root.insert("type".into(), "object".into());
        }
    }
    schema
}

fn request_schema_of<T: JsonSchema>() -> serde_json::Value {
    object_schema::<T>(request_settings())
}

fn result_schema_of<T: JsonSchema>() -> serde_json::Value {
    object_schema::<T>(result_settings())
}

/// `T`'s schema inside a document that holds many (its definitions kept by the
/// generator, one per distinct type).
fn subschema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// JSON Schema's `integer` is a number with no fraction, `1.0` included; serde's integers
/// are not. Such numbers become integers before the request is decoded.
fn integral_numbers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
            {
                if f >= 0.0 && f < u64::MAX as f64 {
                    *value = serde_json::Value::from(f as u64);
                } else if f < 0.0 && f >= i64::MIN as f64 {
                    *value = serde_json::Value::from(f as i64);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral_numbers),
        serde_json::Value::Object(map) => map.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// Builds a registry entry from the function that serves it; `Req` and `Res` (and so the
/// schemas) come from the function's type.
pub fn op<Req, Res>(
    name: &'static str,
    cli: &'static str,
    summary: &'static str,
    run: fn(&Ctx, Req) -> Result<Res, Error>,
) -> Operation
where
    Req: DeserializeOwned + JsonSchema + 'static,
    Res: Report + 'static,
{
    Operation {
        name,
        summary,
        cli,
        writes: false,
        human_act: false,
        admin: false,
        entry_point: false,
        people_only: false,
        anywhere: false,
        never_fails: false,
        idempotent: false,
        destructive: false,
        open_world: false,
        mcp_name: None,
        http_path: None,
        request_schema: request_schema_of::<Req>,
        result_schema: result_schema_of::<Res>,
        request_in: subschema_of::<Req>,
        result_in: subschema_of::<Res>,
        invoke: Arc::new(move |operation, ctx, value| {
            operation.around(ctx, || {
                // No arguments at all is an empty request.
                let mut value = match value {
                    serde_json::Value::Null => serde_json::Value::Object(Default::default()),
                    v => v,
                };
                integral_numbers(&mut value);
                let request: Req =
                    serde_json::from_value(value).map_err(|e| UsageError::InvalidRequest {
                        operation: name.to_owned(),
                        message: e.to_string(),
                    })?;
                run(ctx, request).map(|result| Invoked::of(&result))
            })
        }),
        reported: Arc::new(move |operation, ctx, request| {
            let request = *request.downcast::<Req>().unwrap_or_else(|_| {
                panic!(
                    "operation {name} given a request that is not its {}",
                    std::any::type_name::<Req>()
                )
            });
            operation.around(ctx, || run(ctx, request).map(|result| Invoked::of(&result)))
        }),
        typed: Arc::new(run),
    }
}

impl Operation {
    /// Marks the operation as writing to the memory.
    pub fn writes(mut self) -> Operation {
        self.writes = true;
        self
    }

    /// Marks the operation as a human act (it writes, and no agent surface offers it).
    pub fn human_act(mut self) -> Operation {
        self.writes = true;
        self.human_act = true;
        self
    }

    /// Marks the operation as an act on the repository's wiring (never offered to agents).
    pub fn admin(mut self) -> Operation {
        self.admin = true;
        self
    }

    /// Marks the operation as a hook entry point.
    pub fn entry_point(mut self) -> Operation {
        self.entry_point = true;
        self
    }

    /// Marks an operation that runs in a repository `init` has not set up: the registry
    /// does not refuse it `repository.initialised`.
    pub fn anywhere(mut self) -> Operation {
        self.anywhere = true;
        self
    }

    /// Marks an agent client's hook (a hook entry point that runs anywhere): it never
    /// fails its client (docs/HOOKS.md).
    pub fn provider_hook(mut self) -> Operation {
        self.entry_point = true;
        self.anywhere = true;
        self.never_fails = true;
        self
    }

    /// Marks a write as idempotent: a second identical run changes nothing.
    pub fn idempotent(mut self) -> Operation {
        self.idempotent = true;
        self
    }

    /// Marks a write as destructive: it removes or rewrites what is there.
    pub fn destructive(mut self) -> Operation {
        self.destructive = true;
        self
    }

    /// Marks an operation that reaches beyond the repository (it runs advisors).
    pub fn open_world(mut self) -> Operation {
        self.open_world = true;
        self
    }

    /// Names the MCP tool (SPEC's spelling) instead of the derived `majordomus_<name>`.
    pub fn mcp(mut self, tool: &'static str) -> Operation {
        self.mcp_name = Some(tool);
        self
    }

    /// Names the HTTP route path (SPEC's spelling) instead of the derived
    /// `/api/v1/<name with dots as slashes>`.
    pub fn http(mut self, path: &'static str) -> Operation {
        self.http_path = Some(path);
        self
    }

    /// Marks a read as a person's (see [`Operation::people_only`]): never an MCP tool.
    pub fn people_only(mut self) -> Operation {
        self.people_only = true;
        self
    }

    /// Offered to agents (the MCP tools): neither a human act, nor an act on the
    /// repository's wiring, nor an entry point, nor a person's read.
    pub fn offered_to_agents(&self) -> bool {
        !self.human_act && !self.admin && !self.entry_point && !self.people_only
    }

    /// Its MCP tool name: SPEC's spelling when the entry gives one, else `majordomus_` +
    /// the name with dots (and dashes) as underscores.
    pub fn tool_name(&self) -> String {
        match self.mcp_name {
            Some(name) => name.to_owned(),
            None => format!("majordomus_{}", self.name.replace(['.', '-'], "_")),
        }
    }

    /// An agent may run it without asking a person (what `setup` allows in a client's
    /// project settings): offered to agents, and it only reads, or only adds to the memory
    /// (a write neither destructive nor reaching beyond the repository). Exactly what its
    /// MCP annotations say.
    pub fn runs_unasked(&self) -> bool {
        self.offered_to_agents() && (!self.writes || (!self.destructive && !self.open_world))
    }

    /// Runs the operation on a JSON request, as MCP and HTTP call it: decoded, then run
    /// [`around`](Operation::around) like every call.
    pub fn invoke(&self, ctx: &Ctx, request: serde_json::Value) -> Result<Invoked, Error> {
        (self.invoke)(self, ctx, request)
    }

    /// Runs the operation on a typed request, its result rendered as MCP and HTTP receive
    /// it (the CLI prints it): the same path as [`invoke`](Operation::invoke) without the
    /// JSON request.
    ///
    /// # Panics
    /// When `Req` is not the entry's request type (a programming error).
    pub fn report<Req: 'static>(&self, ctx: &Ctx, request: Req) -> Result<Invoked, Error> {
        (self.reported)(self, ctx, Box::new(request))
    }

    /// Runs the operation on a typed request, as the CLI and the cockpit call it: the same
    /// path as [`invoke`](Operation::invoke) without the JSON.
    ///
    /// # Panics
    /// When `Req` and `Res` are not the types of the function the entry serves: a
    /// programming error, which every command's test finds.
    pub fn call<Req: 'static, Res: 'static>(&self, ctx: &Ctx, request: Req) -> Result<Res, Error> {
        let run = self
            .typed
            .downcast_ref::<fn(&Ctx, Req) -> Result<Res, Error>>()
            .unwrap_or_else(|| {
                panic!(
                    "operation {} called with types {} -> {}, which are not its own",
                    self.name,
                    std::any::type_name::<Req>(),
                    std::any::type_name::<Res>()
                )
            });
        self.around(ctx, || run(ctx, request))
    }

    /// What the registry checks before the operation's function runs: the repository is
    /// initialised, unless the entry runs [`anywhere`](Operation::anywhere). A surface that
    /// must refuse before it gathers the request (the CLI before it waits on stdin) asks
    /// this; [`around`](Operation::around) asks it for every call.
    pub fn precondition(&self, ctx: &Ctx) -> Result<(), Error> {
        if self.anywhere {
            Ok(())
        } else {
            ctx.require_initialised()
        }
    }

    /// The one place that runs around every operation, whichever surface called it: the
    /// timing phase named after the operation (`MAJORDOMUS_TIMING`), then the
    /// [`precondition`](Operation::precondition), then `run`.
    fn around<T>(&self, ctx: &Ctx, run: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
        let _phase = crate::timing::Phase::start(self.name);
        self.precondition(ctx)?;
        run()
    }

    /// The request's JSON Schema (an object schema).
    pub fn request_schema(&self) -> serde_json::Value {
        (self.request_schema)()
    }

    /// The result's JSON Schema (an object schema), as the result is written.
    pub fn result_schema(&self) -> serde_json::Value {
        (self.result_schema)()
    }

    /// The request's schema in `generator` (a generator of [`request_settings`]), which
    /// keeps one definition per distinct type across every schema it made: how a
    /// document of many operations (OpenAPI) names each type once.
    pub fn request_in(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.request_in)(generator)
    }

    /// The result's schema in `generator` (a generator of [`result_settings`]).
    pub fn result_in(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.result_in)(generator)
    }

    /// The entry as `majordomus schema` prints it.
    pub fn describe(&self) -> OperationInfo {
        OperationInfo {
            name: self.name,
            summary: self.summary,
            cli: self.cli,
            writes: self.writes,
            human_act: self.human_act,
            admin: self.admin,
            entry_point: self.entry_point,
            offered_to_agents: self.offered_to_agents(),
            initialised: !self.anywhere,
            never_fails: self.never_fails,
            request: self.request_schema(),
            result: self.result_schema(),
        }
    }
}

/// One operation as the machine-readable contract shows it.
#[derive(Debug, Clone, Serialize)]
pub struct OperationInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub cli: &'static str,
    pub writes: bool,
    pub human_act: bool,
    pub admin: bool,
    pub entry_point: bool,
    /// An MCP tool: neither a human act, an admin act, an entry point nor a person's read.
    pub offered_to_agents: bool,
    /// It needs an initialised repository (refused `repository.initialised` otherwise).
    pub initialised: bool,
    /// A provider hook: a failure exits 0 and is said on stderr.
    pub never_fails: bool,
    pub request: serde_json::Value,
    pub result: serde_json::Value,
}

/// A repository opened for one request, and the registry its operations run through: what
/// a page that shows several operations' results (the cockpit) calls them with.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    pub ctx: &'a Ctx,
    pub registry: &'a Registry,
}

impl Caller<'_> {
    /// Runs `name` on a typed request ([`Registry::call`]).
    pub fn call<Req: 'static, Res: 'static>(&self, name: &str, request: Req) -> Result<Res, Error> {
        self.registry.call(self.ctx, name, request)
    }
}

/// Every operation, in a stable order.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    operations: Vec<Operation>,
}

impl Registry {
    /// The standard registry, built once per process: what the CLI and the cockpit run
    /// through (MCP and HTTP servers are handed their registry).
    pub fn shared() -> &'static Registry {
        static SHARED: OnceLock<Registry> = OnceLock::new();
        SHARED.get_or_init(Registry::standard)
    }

    /// Adds an operation; a second one with the same name replaces nothing and panics,
    /// because two capabilities under one name is a programming error.
    pub fn register(&mut self, operation: Operation) -> &mut Registry {
        assert!(
            self.get(operation.name).is_none(),
            "operation {} registered twice",
            operation.name
        );
        self.operations.push(operation);
        self
    }

    pub fn get(&self, name: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Operation> {
        self.operations.iter()
    }

    /// Runs `name` on a JSON request.
    pub fn invoke(
        &self,
        ctx: &Ctx,
        name: &str,
        request: serde_json::Value,
    ) -> Result<Invoked, Error> {
        let operation = self.get(name).ok_or_else(|| UsageError::UnknownOperation {
            name: name.to_owned(),
        })?;
        operation.invoke(ctx, request)
    }

    /// Runs `name` on a typed request ([`Operation::call`]).
    ///
    /// # Panics
    /// When no operation is called `name`, or `Req` and `Res` are not its types: both a
    /// programming error in the caller, which names the operation in code.
    pub fn call<Req: 'static, Res: 'static>(
        &self,
        ctx: &Ctx,
        name: &str,
        request: Req,
    ) -> Result<Res, Error> {
        self.entry(name).call(ctx, request)
    }

    /// The entry `name`, which the caller names in code.
    ///
    /// # Panics
    /// When there is none.
    pub fn entry(&self, name: &str) -> &Operation {
        self.get(name)
            .unwrap_or_else(|| panic!("no operation {name} in the registry"))
    }

    /// The operations the CLI command `path` (`hook session-start`) runs.
    pub fn by_cli<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Operation> + 'a {
        self.operations.iter().filter(move |o| o.cli == path)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::error::Class;

    #[derive(Debug, Deserialize, JsonSchema)]
    struct Ask {}

    #[derive(Debug, Serialize, JsonSchema)]
    struct Ran {
        ran: bool,
    }

    impl Report for Ran {
        fn text(&self) -> String {
            "ran\n".into()
        }
    }

    /// How often [`count`] ran.
    static RUNS: AtomicUsize = AtomicUsize::new(0);

    fn count(_ctx: &Ctx, _ask: Ask) -> Result<Ran, Error> {
        RUNS.fetch_add(1, Ordering::SeqCst);
        Ok(Ran { ran: true })
    }

    /// A git repository `init` has not set up, and a registry of two operations on it.
    fn uninitialised() -> (tempfile::TempDir, Ctx, Registry) {
        let dir = tempfile::tempdir().expect("tempdir");
        crate::git::Repo::init(dir.path()).expect("git init");
        let ctx = Ctx::open_isolated(dir.path(), crate::Clock::System).expect("open");
        let mut registry = Registry::default();
        registry
            .register(op(
                "test.needs-init",
                "test",
                "Needs an initialised repository.",
                count,
            ))
            .register(op("test.anywhere", "test", "Runs anywhere.", count).anywhere());
        (dir, ctx, registry)
    }

    #[test]
    fn the_registry_refuses_an_operation_that_needs_init_before_it_runs() {
        let (_dir, ctx, registry) = uninitialised();
        let before = RUNS.load(Ordering::SeqCst);
        let json = registry
            .invoke(&ctx, "test.needs-init", serde_json::json!({}))
            .expect_err("refused over JSON");
        // Refused before the request is even decoded: the same for a bad request.
        let bad = registry
            .invoke(&ctx, "test.needs-init", serde_json::json!([1]))
            .expect_err("refused");
        let typed = registry
            .call::<Ask, Ran>(&ctx, "test.needs-init", Ask {})
            .expect_err("refused typed");
        let reported = registry
            .entry("test.needs-init")
            .report(&ctx, Ask {})
            .expect_err("refused reported");
        for error in [json, bad, typed, reported] {
            assert_eq!(error.class(), Class::Refused, "{error}");
            assert_eq!(error.report().rule, "repository.initialised", "{error}");
            assert_eq!(error.report().fix.as_deref(), Some("majordomus init"));
        }
        assert_eq!(
            RUNS.load(Ordering::SeqCst),
            before,
            "the function never ran"
        );
        assert!(
            registry
                .entry("test.needs-init")
                .precondition(&ctx)
                .is_err()
        );
    }

    #[test]
    fn an_operation_declared_anywhere_runs_uninitialised() {
        let (_dir, ctx, registry) = uninitialised();
        let invoked = registry
            .invoke(&ctx, "test.anywhere", serde_json::json!({}))
            .expect("runs");
        assert_eq!(invoked.value, serde_json::json!({"ran": true}));
        assert_eq!(invoked.text, "ran\n");
        let ran: Ran = registry
            .call(&ctx, "test.anywhere", Ask {})
            .expect("runs typed");
        assert!(ran.ran);
    }

    #[test]
    #[should_panic(expected = "not its own")]
    fn a_typed_call_with_the_wrong_types_is_a_programming_error() {
        let (_dir, ctx, registry) = uninitialised();
        let _ = registry.call::<Ask, Invoked>(&ctx, "test.anywhere", Ask {});
    }

    #[test]
    fn the_standard_registry_declares_only_the_agent_hooks_never_failing() {
        let never: Vec<&str> = Registry::standard()
            .iter()
            .filter(|o| o.never_fails)
            .map(|o| o.name)
            .collect();
        assert_eq!(
            never,
            [
                "hook.session-start",
                "hook.session-end",
                "hook.compact",
                "hook.prompt",
                "hook.edit"
            ]
        );
    }
}
