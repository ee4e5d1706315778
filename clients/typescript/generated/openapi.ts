// Generated from api/openapi.json by clients/typescript/codegen/generate.ts; do not edit.
// Regenerate with `make client-types` (a unit test fails when this file drifts).

export interface paths {
    "/sandboxes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List sandboxes (non-admins see their own); `watch=true` with `Accept: text/event-stream` streams `added` for each, then `added`, `modified`, `deleted` as they change */
        get: operations["listSandboxes"];
        put?: never;
        /** Create a sandbox */
        post: operations["createSandbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a sandbox */
        get: operations["getSandbox"];
        put?: never;
        post?: never;
        /** Delete a sandbox */
        delete: operations["deleteSandbox"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a sandbox (keeps its workspace) */
        post: operations["stopSandbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume a stopped sandbox, or one its timeout or idleTimeout stopped */
        post: operations["resumeSandbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/clone": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Clone a sandbox from a VolumeSnapshot of its workspace */
        post: operations["cloneSandbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/ports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The sandbox's forwarded ports (status.forwardedPorts) */
        get: operations["listPorts"];
        put?: never;
        /** Forward a container port */
        post: operations["forwardPort"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/ports/{port}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Stop forwarding a port (idempotent) */
        delete: operations["unforwardPort"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/preview/{port}/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Reverse-proxy to a forwarded port (any method; WebSocket upgrades pass through) */
        get: operations["previewPort"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/configure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Write files, record the entrypoint and run the install once (agent mode); streams `log` then `result` */
        post: operations["configureSandbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/invoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the entrypoint with the raw body as stdin (agent mode; at most 16 MiB); streams `start`, `log`, `exit`, optional `error`; with `detach=true` 202 and the run’s id at once, the run going on without the caller */
        post: operations["invokeSandbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/invoke/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel an invoke in flight (from any API replica) */
        post: operations["cancelInvoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Audit records (Sandbox Events), newest first; non-admins see their own sandboxes only */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's Secrets (an admin: every user's): names and keys, never values */
        get: operations["listSecrets"];
        put?: never;
        /** Store a Secret of the caller's own for spec.credentials, labelled svc.io/owner=<caller>; values are write-only */
        post: operations["createSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/secrets/{secretName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete one of the caller's Secrets (404 for another user's) */
        delete: operations["deleteSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/governance/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The cluster default and every namespace override (admin) */
        get: operations["getPolicies"];
        /** Set the cluster default policy (admin) */
        put: operations["setClusterPolicy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/governance/policies/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set a namespace override (admin) */
        put: operations["setNamespacePolicy"];
        post?: never;
        /** Remove a namespace override (admin) */
        delete: operations["deleteNamespacePolicy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/governance/effective": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The policy in force in a namespace */
        get: operations["getEffectivePolicy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apikeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API keys, without the keys themselves (admin) */
        get: operations["listApiKeys"];
        put?: never;
        /** Create an API key; the answer is the only time the key is shown (admin) */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apikeys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API key (admin) */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/exec": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a command in the sandbox (a string runs with sh -c; at most 32 at once per sandbox): JSON with the exit and each stream up to 10 MiB, or with `Accept: text/event-stream` the events `start`, `log`, `exit`, optional `error`; with `detach=true` (and a `timeout`) 202 and the run’s id at once */
        post: operations["execSandbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/exec/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel an exec in flight by the id of its `start` event (SIGTERM, then SIGKILL) */
        post: operations["cancelExec"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The template process's recent stdout and stderr (the last 1 MiB); `follow=true` with `Accept: text/event-stream` streams `log` events, the kept output first */
        get: operations["getSandboxLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The sandbox’s invokes and execs: in flight, and ended ones whose events are still kept (15 minutes by default) */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/runs/{invokeId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run’s events, each with an `id:`: replayed from the start, or after `Last-Event-ID` (header) or `lastEventId`, then followed to `exit`. `drop` says how many of the oldest `log` events the buffer lost. Reading leaves the run alone */
        get: operations["getRunEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/runs/{invokeId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel an invoke or exec in flight, attached or detached (SIGTERM, then SIGKILL) */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the sandbox uses now: CPU, memory, workspace bytes, processes, runs and terminals; with `Accept: text/event-stream` a `usage` event every 2 s until the caller leaves. Not activity for idleTimeout */
        get: operations["getSandboxUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a folder of the workspace (`?path=/workspace/…`; `/files/?path=` works too) */
        get: operations["listFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/files/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file's bytes, streamed (Range → 206; ETag, Last-Modified); a folder answers with its listing */
        get: operations["readFile"];
        /** Write a file from the raw body, streamed (temporary file, then rename; folders created); 201 new, 200 replaced */
        put: operations["writeFile"];
        /** Make a folder (`{"op":"mkdir"}`) or move an entry (`{"op":"move","to":"/workspace/…"}`) */
        post: operations["fileOperation"];
        /** Delete a file, link or empty folder (`?recursive=true` for a folder with entries) */
        delete: operations["deleteFile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A folder as a zip (default), tar or tar.gz, streamed (modes, times and links kept) */
        get: operations["downloadArchive"];
        /** Extract a tar or tar.gz into a folder; any entry that would land outside the workspace refuses the whole archive before anything is written */
        put: operations["uploadArchive"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/terminal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A shell on a pseudo-terminal, over a WebSocket (Upgrade: websocket): binary frames are input and output, text frames JSON control (`resize`) and, last, `{"type":"exit","exitCode":N}` */
        get: operations["openTerminal"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/terminal/ticket": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A one-use ticket for the terminal's WebSocket (`?ticket=`), valid 30 seconds */
        post: operations["createTerminalTicket"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandboxes/{id}/ports/{port}/preview-ticket": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A one-use ticket that signs a browser in to one forwarded port's preview path (a cookie for that path only, 15 minutes) */
        post: operations["createPreviewTicket"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The ClusterSandboxTemplates and the namespace's SandboxTemplates the caller may use (governance's allowedTemplates) */
        get: operations["listTemplates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/templates/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One template the caller may use; a name that is both kinds gives the ClusterSandboxTemplate unless `kind` says */
        get: operations["getTemplate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller as the API sees it */
        get: operations["getCurrentUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The Model Context Protocol server over Streamable HTTP (stateless, JSON answers): JSON-RPC messages in, their answers out, 202 when none needs one */
        post: operations["mcpMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A forwarded port of a sandbox and where to reach it */
        ForwardedPort: {
            /** @description Port the sandbox listens on */
            port: number;
            /** @description Protocol of the port: http */
            protocol: string;
            /** @description URL inside the cluster: http://pf-<sandbox>-<port>.<namespace>.svc.cluster.local:<port> */
            internalUrl: string;
            /** @description Public URL, https://sandbox-<sandbox>-<port>.<namespace>.<preview domain>/, when a preview domain is set */
            previewUrl?: string;
        };
        CreateSandboxRequest: {
            /**
             * @description code: an interactive sandbox; agent: runs a configured entrypoint on demand (configure, invoke). Immutable
             * @default code
             * @enum {string}
             */
            mode?: "code" | "agent";
            templateRef: {
                name: string;
                /**
                 * @description ClusterSandboxTemplate (cluster-wide, the default) or SandboxTemplate (in the sandbox namespace)
                 * @default ClusterSandboxTemplate
                 * @enum {string}
                 */
                kind?: "ClusterSandboxTemplate" | "SandboxTemplate";
            };
            /** @description Override of the template's image */
            image?: {
                /** @description Image to run instead of the template's; governance may restrict registries */
                repository?: string;
            };
            /** @description Lifetime cap from the Pod's start, such as 8h; 0 means infinite. The template's when unset */
            timeout?: string;
            /** @description The sandbox stops after this long without an API call, such as 30m. The template's when unset */
            idleTimeout?: string;
            /** @description Ignored: the service sets createdBy to the authenticated caller. */
            createdBy?: string;
            /**
             * @description true stops the sandbox (its Pod goes, its /workspace stays); false starts it again
             * @default false
             */
            stopped?: boolean;
            /** @description CPU and memory of the sandbox container and the size of its /workspace volume; each field set here wins over the template's */
            resources?: {
                /** @description What the scheduler reserves for the sandbox container */
                requests?: {
                    /** @description CPU request, in cores: 500m, 1 or 2 */
                    cpu?: number | string;
                    /** @description Memory request, in bytes: 512Mi or 2Gi */
                    memory?: number | string;
                    /** @description Ephemeral storage request (the container's writable filesystem and logs), in bytes: 10Gi */
                    "ephemeral-storage"?: number | string;
                };
                /** @description What the sandbox container may use at most; each unset limit gets a default */
                limits?: {
                    /** @description CPU limit, in cores: 500m, 1 or 2 */
                    cpu?: number | string;
                    /** @description Memory limit, in bytes: 512Mi or 2Gi */
                    memory?: number | string;
                    /** @description Ephemeral storage limit (the container's writable filesystem and logs), in bytes: 10Gi */
                    "ephemeral-storage"?: number | string;
                };
                /** @description Size of the /workspace volume, such as 1Gi */
                storage?: number | string;
            };
            /** @description Environment variables, added to the template's (these win on a name) */
            env?: {
                /** @description Name of the variable: letters, digits and underscores, not starting with a digit */
                name: string;
                /**
                 * @description Literal value of the variable; empty when unset
                 * @default
                 */
                value?: string;
            }[];
            /** @description Ports forwarded to a Service (and a preview URL when a preview domain is set) */
            ports?: {
                /** @description Port the sandbox listens on; not 9000, sandboxd's */
                port: number;
                /**
                 * @description Protocol of the port; http is the only one
                 * @default http
                 * @enum {string}
                 */
                protocol?: "http";
            }[];
            /** @description Secrets the sandbox receives, by name only: the kubelet reads the values, so they never appear in the Sandbox, its status or events */
            credentials?: {
                /** @description Environment variables whose values come from Secrets */
                env?: {
                    /** @description Name of the environment variable the sandbox sees */
                    name: string;
                    /** @description Secret in the sandbox namespace that holds the value */
                    secretName: string;
                    /** @description Key of the value in that Secret */
                    key: string;
                }[];
                /** @description Secrets mounted as files, one file per key */
                files?: {
                    /** @description Secret in the sandbox namespace whose keys become files */
                    secretName: string;
                    /**
                     * Format: starts_with
                     * @description Absolute folder the files appear in, read-only
                     */
                    mountPath: string;
                }[];
            };
            /** @description RuntimeClass of the sandbox's Pod instead of the template's; allowed only when it is in the governance policy's allowedRuntimeClasses. Immutable */
            runtimeClassName?: string;
            /** @description This sandbox's egress within its template's */
            network?: {
                /** @description Hosts this sandbox may reach, each inside an entry of its template's allowedHosts (the template's egress must be allowlist): a Sandbox narrows its template's list, never widens it. The template's list when unset */
                allowedHosts?: string[];
            };
            /** @description Harnesses of the sandbox modes; agent applies to mode: agent */
            harness?: {
                /** @description The agent harness: what configure installs and invoke runs (mode: agent) */
                agent?: {
                    /** @description Command (argv) run on every invoke, with the request body on its stdin; configure sets it */
                    entrypoint?: string[];
                    /** @description Command (argv) run once at configure time */
                    installCommand?: string[];
                    /**
                     * Format: starts_with
                     * @description Absolute working directory of the install command and the entrypoint
                     * @default /workspace
                     */
                    workingDir?: string;
                    /** @description Environment of the install command and the entrypoint */
                    env?: {
                        /** @description Name of the variable: letters, digits and underscores, not starting with a digit */
                        name: string;
                        /**
                         * @description Literal value of the variable; empty when unset
                         * @default
                         */
                        value?: string;
                    }[];
                    /** @description Cap on parallel invokes of this sandbox; governance may lower it */
                    maxConcurrentInvokes?: number;
                    /** @description Wall-clock cap of one invoke, such as 5m; 0 means none */
                    defaultInvokeTimeout?: string;
                };
            };
            name: string;
            namespace?: string;
        };
        CloneRequest: {
            name?: string;
            snapshotClass?: string;
            namespace?: string;
            /** @description Ignored: the service sets createdBy to the authenticated caller. */
            createdBy?: string;
        };
        CloneResponse: {
            /** @description The new sandbox’s id: its name */
            sandboxId: string;
            name: string;
            namespace: string;
            snapshot: string;
            clonedFrom: string;
            /** @constant */
            phase: "Pending";
            message: string;
        };
        PortRequest: {
            port: number;
            /**
             * @default http
             * @enum {string}
             */
            protocol?: "http";
        };
        Error: {
            error: string;
            message: string;
        } & {
            [key: string]: unknown;
        };
        DetachedRun: {
            invokeId: string;
            /** @description GET it for the run’s events: replayed, then followed to `exit` */
            eventsUrl: string;
        };
        RunSummary: {
            invokeId: string;
            /** @enum {string} */
            kind: "exec" | "invoke";
            /** @enum {string} */
            state: "running" | "exited";
            startedAt: string;
            /** @description null while running */
            exitCode: number | null;
            /** @description null while running */
            durationMs: number | null;
            /** @enum {string} */
            reason?: "completed" | "canceled" | "timeout" | "error";
            detached: boolean;
        };
        RunList: {
            items: components["schemas"]["RunSummary"][];
        };
        DropEvent: {
            droppedBytes: number;
            droppedEvents: number;
        };
        CreateSecretRequest: {
            name: string;
            data: {
                [key: string]: string;
            };
        };
        SecretSummary: {
            name: string;
            namespace: string;
            owner: string;
            keys: string[];
            creationTimestamp?: string;
        };
        SecretList: {
            items: components["schemas"]["SecretSummary"][];
        };
        CreateApiKeyRequest: {
            user: string;
            /** @default [] */
            groups?: string[];
            /** @default false */
            admin?: boolean;
        };
        ApiKey: {
            id: string;
            user: string;
            /** @default [] */
            groups?: string[];
            /** @default false */
            admin?: boolean;
            createdAt: string;
        };
        ApiKeyList: {
            items: components["schemas"]["ApiKey"][];
        };
        CreatedApiKey: {
            id: string;
            user: string;
            /** @default [] */
            groups?: string[];
            /** @default false */
            admin?: boolean;
            createdAt: string;
            /** @description The key itself: shown once, never again */
            key: string;
        };
        ExecRequest: {
            command: string | string[];
            timeout?: number | string;
            workingDir?: string;
            env?: {
                [key: string]: string;
            };
            stdin?: string;
        };
        ExecResult: {
            exitCode: number;
            stdout: string;
            stderr: string;
            durationMs: number;
            /** @enum {string} */
            reason: "completed" | "canceled" | "timeout" | "error";
            /** @description stdout or stderr was longer than 10 MiB and is cut there */
            truncated: boolean;
        };
        ExecCancelRequest: {
            invokeId: string;
        };
        SandboxLogs: {
            entries: {
                /** @enum {string} */
                stream: "stdout" | "stderr";
                data: string;
            }[];
            /** @description older output was dropped (only the last 1 MiB is kept) */
            truncated: boolean;
            droppedBytes: number;
        };
        UsageSample: {
            /** @description When the sample was taken (RFC 3339) */
            at: string;
            /** @description CPU used over the second before, in cores */
            cpuCores: number;
            /** @description Working set: memory used less the inactive page cache */
            memoryBytes: number;
        };
        SandboxUsage: {
            /** @description When the figures were read (RFC 3339) */
            at: string;
            cpu: {
                /** @description CPU used over the last second, in cores */
                cores: number;
                /** @description Time the CPU limit held the sandbox back, since its start */
                throttledSeconds: number;
                /** @description The CPU limit in cores; null: none */
                limitCores: number | null;
            };
            memory: {
                /** @description Memory used less the inactive page cache (what the limit counts) */
                workingSetBytes: number;
                /** @description The memory limit; null: none */
                limitBytes: number | null;
            };
            workspace: {
                /** @description Bytes /workspace's files take */
                usedBytes: number;
                /** @description Bytes still free for /workspace */
                freeBytes: number;
                /** @description Size of /workspace's file system */
                totalBytes: number;
            };
            /** @description Processes in the sandbox, sandboxd among them */
            processes: number;
            /** @description Runs alive, by kind */
            runs: {
                exec: number;
                invoke: number;
                configure: number;
            };
            /** @description Terminal sessions open */
            terminals: number;
            /** @description Whether the Pod's cgroup could be read (false: CPU and memory read 0) */
            cgroup: boolean;
            /** @description With `?history=S`: the samples of the last S seconds */
            history?: components["schemas"]["UsageSample"][];
        };
        FileEntry: {
            name: string;
            path: string;
            size: number;
            isDir: boolean;
            /** @enum {string} */
            type: "file" | "dir" | "symlink";
            /** @description Type and permission bits as `ls -l` writes them: `-rw-r--r--`, `drwxr-xr-x`, `lrwxrwxrwx`; setuid, setgid and sticky as `s`/`S` and `t`/`T` in the execute slots */
            mode: string;
            /** @description Seconds since the epoch */
            modifiedAt: number;
        };
        FileListing: {
            path: string;
            entries: components["schemas"]["FileEntry"][];
        };
        FileWritten: {
            path: string;
            size: number;
            sha256: string;
        };
        FilePath: {
            path: string;
        };
        FileOperation: {
            /** @constant */
            op: "mkdir";
        } | {
            /** @constant */
            op: "move";
            /** @description An absolute path inside /workspace */
            to: string;
        };
        ArchiveExtracted: {
            /** @description Files and links written */
            files: number;
            /** @description Bytes of the files written */
            bytes: number;
        };
        TerminalTicket: {
            /** @description Opaque; valid once, for this caller and this sandbox */
            ticket: string;
            /**
             * Format: date-time
             * @description 30 seconds after it was issued
             */
            expiresAt: string;
        };
        Sandbox: {
            /** @description The sandbox’s id in API paths: its name */
            sandboxId: string;
            name: string;
            namespace: string;
            /** @constant */
            apiVersion: "svc.io/v1alpha1";
            /** @constant */
            kind: "Sandbox";
            metadata: {
                name: string;
                namespace: string;
            } & {
                [key: string]: unknown;
            };
            /** @description What the user asks for: the template, mode, limits, environment and ports of the sandbox */
            spec: {
                /**
                 * @description code: an interactive sandbox; agent: runs a configured entrypoint on demand (configure, invoke). Immutable
                 * @default code
                 * @enum {string}
                 */
                mode?: "code" | "agent";
                /** @description The template the sandbox is made from. Immutable */
                templateRef: {
                    /** @description Name of the template (a Kubernetes object name) */
                    name: string;
                    /**
                     * @description ClusterSandboxTemplate (cluster-wide, the default) or SandboxTemplate (in the sandbox namespace)
                     * @default ClusterSandboxTemplate
                     * @enum {string}
                     */
                    kind?: "ClusterSandboxTemplate" | "SandboxTemplate";
                };
                /** @description Override of the template's image */
                image?: {
                    /** @description Image to run instead of the template's; governance may restrict registries */
                    repository?: string;
                };
                /** @description Lifetime cap from the Pod's start, such as 8h; 0 means infinite. The template's when unset */
                timeout?: string;
                /** @description The sandbox stops after this long without an API call, such as 30m. The template's when unset */
                idleTimeout?: string;
                /** @description The user who created the sandbox, set from the authenticated user by the API and the webhook. Immutable */
                createdBy?: string;
                /** @description VolumeSnapshot a clone was hydrated from. Immutable */
                cloneFromSnapshot?: string;
                /**
                 * @description true stops the sandbox (its Pod goes, its /workspace stays); false starts it again
                 * @default false
                 */
                stopped?: boolean;
                /** @description CPU and memory of the sandbox container and the size of its /workspace volume; each field set here wins over the template's */
                resources?: {
                    /** @description What the scheduler reserves for the sandbox container */
                    requests?: {
                        /** @description CPU request, in cores: 500m, 1 or 2 */
                        cpu?: number | string;
                        /** @description Memory request, in bytes: 512Mi or 2Gi */
                        memory?: number | string;
                        /** @description Ephemeral storage request (the container's writable filesystem and logs), in bytes: 10Gi */
                        "ephemeral-storage"?: number | string;
                    };
                    /** @description What the sandbox container may use at most; each unset limit gets a default */
                    limits?: {
                        /** @description CPU limit, in cores: 500m, 1 or 2 */
                        cpu?: number | string;
                        /** @description Memory limit, in bytes: 512Mi or 2Gi */
                        memory?: number | string;
                        /** @description Ephemeral storage limit (the container's writable filesystem and logs), in bytes: 10Gi */
                        "ephemeral-storage"?: number | string;
                    };
                    /** @description Size of the /workspace volume, such as 1Gi */
                    storage?: number | string;
                };
                /** @description Environment variables, added to the template's (these win on a name) */
                env?: {
                    /** @description Name of the variable: letters, digits and underscores, not starting with a digit */
                    name: string;
                    /**
                     * @description Literal value of the variable; empty when unset
                     * @default
                     */
                    value?: string;
                }[];
                /** @description Ports forwarded to a Service (and a preview URL when a preview domain is set) */
                ports?: {
                    /** @description Port the sandbox listens on; not 9000, sandboxd's */
                    port: number;
                    /**
                     * @description Protocol of the port; http is the only one
                     * @default http
                     * @enum {string}
                     */
                    protocol?: "http";
                }[];
                /** @description Secrets the sandbox receives, by name only: the kubelet reads the values, so they never appear in the Sandbox, its status or events */
                credentials?: {
                    /** @description Environment variables whose values come from Secrets */
                    env?: {
                        /** @description Name of the environment variable the sandbox sees */
                        name: string;
                        /** @description Secret in the sandbox namespace that holds the value */
                        secretName: string;
                        /** @description Key of the value in that Secret */
                        key: string;
                    }[];
                    /** @description Secrets mounted as files, one file per key */
                    files?: {
                        /** @description Secret in the sandbox namespace whose keys become files */
                        secretName: string;
                        /**
                         * Format: starts_with
                         * @description Absolute folder the files appear in, read-only
                         */
                        mountPath: string;
                    }[];
                };
                /** @description RuntimeClass of the sandbox's Pod instead of the template's; allowed only when it is in the governance policy's allowedRuntimeClasses. Immutable */
                runtimeClassName?: string;
                /** @description This sandbox's egress within its template's */
                network?: {
                    /** @description Hosts this sandbox may reach, each inside an entry of its template's allowedHosts (the template's egress must be allowlist): a Sandbox narrows its template's list, never widens it. The template's list when unset */
                    allowedHosts?: string[];
                };
                /** @description Harnesses of the sandbox modes; agent applies to mode: agent */
                harness?: {
                    /** @description The agent harness: what configure installs and invoke runs (mode: agent) */
                    agent?: {
                        /** @description Command (argv) run on every invoke, with the request body on its stdin; configure sets it */
                        entrypoint?: string[];
                        /** @description Command (argv) run once at configure time */
                        installCommand?: string[];
                        /**
                         * Format: starts_with
                         * @description Absolute working directory of the install command and the entrypoint
                         * @default /workspace
                         */
                        workingDir?: string;
                        /** @description Environment of the install command and the entrypoint */
                        env?: {
                            /** @description Name of the variable: letters, digits and underscores, not starting with a digit */
                            name: string;
                            /**
                             * @description Literal value of the variable; empty when unset
                             * @default
                             */
                            value?: string;
                        }[];
                        /** @description Cap on parallel invokes of this sandbox; governance may lower it */
                        maxConcurrentInvokes?: number;
                        /** @description Wall-clock cap of one invoke, such as 5m; 0 means none */
                        defaultInvokeTimeout?: string;
                    };
                };
            };
            /** @description What the operator observed; written through the status subresource only */
            status: {
                /**
                 * @description Pending, Creating, Running, Stopped or Error
                 * @enum {string}
                 */
                phase?: "Pending" | "Creating" | "Running" | "Stopped" | "Error";
                /** @description What the sandbox is doing or why it failed, for people to read */
                message?: string;
                /** @description Name of the sandbox Pod */
                podName?: string;
                /** @description metadata.generation of the Sandbox the operator last acted on */
                observedGeneration?: number;
                /** @description Conditions of the sandbox, one per type (Ready tells whether sandboxd answers) */
                conditions?: {
                    /** @description Kind of the condition: Ready, TemplateResolved, VolumeReady or Stopped */
                    type: string;
                    /**
                     * @description Whether the condition holds: True, False or Unknown
                     * @enum {string}
                     */
                    status: "True" | "False" | "Unknown";
                    /** @description Why the condition has its status, in CamelCase, such as PodReady */
                    reason: string;
                    /**
                     * @description The reason for people to read
                     * @default
                     */
                    message?: string;
                    /**
                     * Format: date-time
                     * @description When the status of the condition last changed (RFC 3339)
                     */
                    lastTransitionTime: string;
                    /** @description metadata.generation of the Sandbox the condition was set from */
                    observedGeneration?: number;
                }[];
                /** @description Name of the source sandbox, on a clone */
                clonedFrom?: string;
                /** @description One entry per forwarded port */
                forwardedPorts?: components["schemas"]["ForwardedPort"][];
                /** @description The template the sandbox resolved to, as <kind>/<name> */
                resolvedTemplate?: string;
                /** @description What the last configure of an agent sandbox left */
                agentConfigure?: {
                    /**
                     * Format: date-time
                     * @description When the last configure finished (RFC 3339)
                     */
                    lastConfiguredAt?: string;
                    /** @description Digest of the install command and files of the last configure; the same again is a no-op */
                    installCommandHash?: string;
                    /** @description Command (argv) that invoke runs, as configured */
                    entrypoint?: string[];
                    /** @description Exit code of the install command of the last configure */
                    installExitCode?: number;
                    /** @description Cap on parallel invokes in force, already lowered by governance */
                    maxConcurrentInvokes?: number;
                };
                /** @description When the sandbox was last seen active, for idleTimeout (RFC 3339) */
                lastActivityAt?: string;
                /** @description Why the sandbox was active when last looked at; empty when it was idle */
                activeReasons?: ("api" | "request" | "exec" | "invoke" | "configure" | "terminal" | "cpu")[];
            };
        };
        SandboxList: {
            items: components["schemas"]["Sandbox"][];
            continue?: string;
        };
        Accepted: {
            name: string;
            namespace: string;
            message: string;
        };
        ConcurrencyExceeded: {
            /** @constant */
            error: "concurrency_exceeded";
            limit: number;
            inflight: number;
            message: string;
        };
        CancelAccepted: {
            invokeId: string;
            /** @constant */
            status: "canceling";
        };
        PolicyViolation: {
            /** @constant */
            error: "policy_violation";
            violations: {
                code: string;
                message: string;
            }[];
        };
        PreviewTicket: {
            /** @description The preview path with `?ticket=`, relative to the API's host: open it in a browser. Its first GET answers 303 with the preview's cookie and the same URL without the ticket */
            url: string;
            /**
             * Format: date-time
             * @description 30 seconds after it was issued; the ticket is valid once
             */
            expiresAt: string;
        };
        Template: {
            name: string;
            /** @enum {string} */
            kind: "ClusterSandboxTemplate" | "SandboxTemplate";
            /** @description The svc.io/description (or kubernetes.io/description) annotation; empty without */
            description: string;
            image: string;
            resourceVersion: string;
            /** @description The template's spec as stored */
            spec: {
                [key: string]: unknown;
            };
            /** @description Warm-pool members ready in the namespace for this template (SandboxWarmPools' readyReplicas): a create that fits one starts at once */
            readyMembers: number;
        };
        TemplateList: {
            templates: components["schemas"]["Template"][];
        };
        CurrentUser: {
            /** @description The user name the API knows the caller by (owner of their sandboxes) */
            sub: string;
            /** @description The token's name claim; the user name without one */
            name: string;
            /** @description The token's email claim; null without one */
            email: string | null;
            groups: string[];
            isAdmin: boolean;
        };
        PortList: {
            ports: components["schemas"]["ForwardedPort"][];
        };
        OpenApiDocument: {
            [key: string]: unknown;
        };
        Policy: {
            maxSandboxesPerUser?: number;
            maxSandboxesTotal?: number;
            maxCpu?: number | string;
            maxMemory?: number | string;
            maxStorage?: number | string;
            maxEphemeralStorage?: number | string;
            maxTimeout?: string;
            maxIdleTimeout?: string;
            allowedTemplates?: string[];
            approvedRegistries?: string[];
            maxAgentSandboxes?: number;
            allowedAgentImages?: string[];
            maxConcurrentInvokesPerSandbox?: number;
            keepCloneSnapshots?: boolean;
            allowedRuntimeClasses?: string[];
            defaultRuntimeClass?: string;
            allowRootSandboxes?: boolean;
            allowedEgressHosts?: string[];
        };
        StoredPolicies: {
            cluster?: components["schemas"]["Policy"];
            namespaces: {
                [key: string]: components["schemas"]["Policy"];
            };
        };
        EffectivePolicy: {
            namespace: string;
            policy: components["schemas"]["Policy"];
        };
        JsonRpcMessage: {
            /** @constant */
            jsonrpc: "2.0";
            id?: string | number | null;
            method?: string;
            params?: {
                [key: string]: unknown;
            };
            result?: {
                [key: string]: unknown;
            };
            error?: {
                code: number;
                message: string;
                data?: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        McpMessages: components["schemas"]["JsonRpcMessage"] | components["schemas"]["JsonRpcMessage"][];
        AuditEgress: {
            host: string;
            port: number;
            /** @enum {string} */
            decision: "allowed" | "denied";
            /** @description Connections the record stands for: 1, or, with summary, those after the first in a window */
            connections: number;
            /** @description A window's like connections after the first, summed */
            summary: boolean;
            /** @description Bytes from the sandbox to the host */
            bytesOut: number;
            /** @description Bytes from the host back */
            bytesIn: number;
            durationMs: number;
            /** @description The line a refused tool saw; null when allowed */
            reason: string | null;
        };
        AuditRecord: {
            id: string;
            time: string;
            reason: string;
            type: string;
            sandbox: string;
            namespace: string;
            actor: string | null;
            message: string;
            count: number;
            involvedObject: {
                [key: string]: unknown;
            };
            /** @description On the egress gateway's records (EgressAllowed, EgressDenied): the decision as fields */
            egress?: components["schemas"]["AuditEgress"];
        };
        AuditList: {
            items: components["schemas"]["AuditRecord"][];
            continue?: string;
        };
        StartEvent: {
            invokeId: string;
            startedAt: string;
        };
        LogEvent: {
            /** @enum {string} */
            stream: "stdout" | "stderr";
            data: string;
        };
        ExitEvent: {
            invokeId: string;
            exitCode: number;
            durationMs: number;
            /** @enum {string} */
            reason: "completed" | "canceled" | "timeout" | "error";
        };
        ErrorEvent: {
            code: string;
            message: string;
        };
        ConfigureRequest: {
            /** @default [] */
            files?: {
                /** Format: starts_with */
                path: string;
                /** @description The file as text (UTF-8) */
                content?: string;
                /** @description The file as base64, for binary files */
                contentBase64?: string;
            }[];
            /** @description An argv: the program, then its arguments */
            entrypoint: string[];
            /** @description An argv: the program, then its arguments */
            installCommand?: string[];
        };
        ConfigureResult: {
            installCommandHash: string;
            installExitCode: number;
            lastConfiguredAt: string;
            entrypoint: string[];
            maxConcurrentInvokes: number;
            skipped: boolean;
        };
        CancelRequest: {
            invokeId: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listSandboxes: {
        parameters: {
            query?: {
                namespace?: string;
                mode?: "code" | "agent";
                phase?: "Pending" | "Creating" | "Running" | "Stopped" | "Error";
                limit?: number;
                continue?: string;
                watch?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events; the data of each event is the JSON of the schema named after it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxList"];
                    "text/event-stream": {
                        /** @constant */
                        event: "added";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "modified";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "deleted";
                        data: string;
                        id?: string;
                        retry?: number;
                    };
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSandbox: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateSandboxRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sandbox"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyViolation"] | components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSandbox: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sandbox"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSandbox: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Accepted"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    stopSandbox: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sandbox"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resumeSandbox: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sandbox"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cloneSandbox: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CloneRequest"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloneResponse"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyViolation"] | components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A stored policy is malformed, or a fault of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPorts: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PortList"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    forwardPort: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["PortRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForwardedPort"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForwardedPort"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The operator did not publish the change in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    unforwardPort: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
                port: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The operator did not publish the change in time */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    previewPort: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
                port: number;
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox did not answer */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The app's own response, passed through */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    configureSandbox: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ConfigureRequest"];
            };
        };
        responses: {
            /** @description Server-Sent Events; the data of each event is the JSON of the schema named after it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        /** @constant */
                        event: "log";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "result";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "error";
                        data: string;
                        id?: string;
                        retry?: number;
                    };
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyViolation"] | components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConcurrencyExceeded"] | components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    invokeSandbox: {
        parameters: {
            query?: {
                namespace?: string;
                timeout?: string;
                detach?: "true" | "false";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description Server-Sent Events; the data of each event is the JSON of the schema named after it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        /** @constant */
                        event: "start";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "log";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "exit";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "error";
                        data: string;
                        id?: string;
                        retry?: number;
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DetachedRun"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyViolation"] | components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox is not configured yet */
            424: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConcurrencyExceeded"] | components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox did not answer */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelInvoke: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CancelRequest"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelAccepted"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                namespace?: string;
                sandbox?: string;
                reason?: string;
                category?: "egress";
                since?: string;
                limit?: number;
                continue?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditList"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSecrets: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretList"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyViolation"] | components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSecret: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateSecretRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretSummary"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyViolation"] | components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSecret: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                secretName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyViolation"] | components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPolicies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredPolicies"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A stored policy is malformed, or a fault of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setClusterPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Policy"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Policy"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setNamespacePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Policy"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Policy"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteNamespacePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEffectivePolicy: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EffectivePolicy"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A stored policy is malformed, or a fault of the service */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenApiDocument"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    execSandbox: {
        parameters: {
            query?: {
                namespace?: string;
                detach?: "true" | "false";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ExecRequest"];
            };
        };
        responses: {
            /** @description Server-Sent Events; the data of each event is the JSON of the schema named after it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExecResult"];
                    "text/event-stream": {
                        /** @constant */
                        event: "start";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "log";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "exit";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "error";
                        data: string;
                        id?: string;
                        retry?: number;
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DetachedRun"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConcurrencyExceeded"] | components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox did not answer */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelExec: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ExecCancelRequest"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelAccepted"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSandboxLogs: {
        parameters: {
            query?: {
                namespace?: string;
                follow?: "true" | "false";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events; the data of each event is the JSON of the schema named after it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxLogs"];
                    "text/event-stream": {
                        /** @constant */
                        event: "log";
                        data: string;
                        id?: string;
                        retry?: number;
                    };
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox did not answer */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunList"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRunEvents: {
        parameters: {
            query?: {
                namespace?: string;
                lastEventId?: string;
            };
            header?: never;
            path: {
                id: string;
                invokeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events; the data of each event is the JSON of the schema named after it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        /** @constant */
                        event: "start";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "log";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "drop";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "exit";
                        data: string;
                        id?: string;
                        retry?: number;
                    } | {
                        /** @constant */
                        event: "error";
                        data: string;
                        id?: string;
                        retry?: number;
                    };
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelRun: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
                invokeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelAccepted"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSandboxUsage: {
        parameters: {
            query?: {
                namespace?: string;
                history?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events; the data of each event is the JSON of the schema named after it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SandboxUsage"];
                    "text/event-stream": {
                        /** @constant */
                        event: "usage";
                        data: string;
                        id?: string;
                        retry?: number;
                    };
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox did not answer */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listFiles: {
        parameters: {
            query?: {
                namespace?: string;
                path?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileListing"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readFile: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                    "application/json": components["schemas"]["FileListing"];
                };
            };
            /** @description Partial content: the byte range asked for */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The byte range asked for is not in the file */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    writeFile: {
        parameters: {
            query?: {
                namespace?: string;
                mode?: string;
            };
            header?: never;
            path: {
                id: string;
                path: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileWritten"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileWritten"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox volume is full; nothing was left behind */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    fileOperation: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
                path: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["FileOperation"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilePath"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilePath"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteFile: {
        parameters: {
            query?: {
                namespace?: string;
                recursive?: "true" | "false";
            };
            header?: never;
            path: {
                id: string;
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadArchive: {
        parameters: {
            query?: {
                namespace?: string;
                path?: string;
                format?: "zip" | "tar" | "tar.gz";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                    "application/x-tar": string;
                    "application/gzip": string;
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    uploadArchive: {
        parameters: {
            query?: {
                namespace?: string;
                path?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ArchiveExtracted"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox volume is full; nothing was left behind */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openTerminal: {
        parameters: {
            query?: {
                namespace?: string;
                cols?: number;
                rows?: number;
                command?: string;
                ticket?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching Protocols: the connection is now a WebSocket */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Upgrade required: this endpoint is a WebSocket */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many in flight */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The sandbox did not answer */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTerminalTicket: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TerminalTicket"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPreviewTicket: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path: {
                id: string;
                port: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreviewTicket"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with the current state (exists already, not running, changed meanwhile) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTemplates: {
        parameters: {
            query?: {
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateList"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTemplate: {
        parameters: {
            query?: {
                namespace?: string;
                kind?: "ClusterSandboxTemplate" | "SandboxTemplate";
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description Invalid request: a parameter or body field is malformed (`fields` names each) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such object (or namespace) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCurrentUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CurrentUser"];
                };
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mcpMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["McpMessages"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpMessages"];
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid X-API-Key or bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request line and headers together exceed the server's limit (16 KiB): a shorter URL */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The MCP transport's own refusals, as JSON-RPC errors (400, 406, 415) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
