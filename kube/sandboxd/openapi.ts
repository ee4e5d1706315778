// Generated from sandboxd/openapi.json by hack/codegen/sandboxd-types.ts; do not edit.
// Regenerate with `make sandboxd-types` (make check-generated fails when this file drifts).

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Up, and how the template process fares */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The runs in flight, or with all=true every run kept */
        get: operations["listRuns"];
        put?: never;
        /**
         * Start a run: its spec, then its stdin
         * @description The body is the run spec as one JSON line, then the run's stdin. With `Upgrade: svc-run` (and a Content-Length of at most 17 MiB) the answer is 101 and the connection carries the same SSE bytes as the 200 answer's body, unchunked, until sandboxd closes it after `exit`; the client closing its side cancels the run. Without, a client that goes away cancels the run.
         */
        post: operations["startRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run's events so far, then followed to its exit */
        get: operations["runEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End a run in flight: SIGTERM, SIGKILL after the grace */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Write a batch of files atomically
         * @description The body is a FileManifest as one JSON line, then the files' bytes back to back, in its order.
         */
        put: operations["putFiles"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The template process's recent output */
        get: operations["logs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set the invoke cap */
        put: operations["putLimits"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace the bearer token (authenticated by the current one) */
        put: operations["putToken"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/fs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a folder, or read a file (Range, If-None-Match…) */
        get: operations["readPath"];
        /** Write a file */
        put: operations["writePath"];
        /** Make a folder, or move an entry */
        post: operations["changePath"];
        /** Delete a file or folder */
        delete: operations["deletePath"];
        options?: never;
        /** A file's headers */
        head: operations["headPath"];
        patch?: never;
        trace?: never;
    };
    "/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A folder as a zip, tar or tar.gz */
        get: operations["downloadArchive"];
        /** Extract a tar or tar.gz into a folder */
        put: operations["extractArchive"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The Pod's usage now */
        get: operations["usage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the sandbox is in use, and since when it is not */
        get: operations["activity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/terminal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A shell on a pseudo-terminal, over the connection taken over
         * @description With `Upgrade: svc-terminal`. After the 101 the connection carries frames: kind (1 byte), length (4 bytes, big-endian), payload. To sandboxd: `i` input, `r` resize (cols, rows: 2 bytes each); from it: `o` output, then one `x` with `{"exitCode":N}`.
         */
        get: operations["openTerminal"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tunnel/{port}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A stream joined to 127.0.0.1:{port} inside the sandbox
         * @description With `Upgrade: tcp`; after the 101 the connection is the port's.
         */
        get: operations["openTunnel"];
        put?: never;
        post?: never;
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
        Error: {
            error: string;
            message: string;
        };
        ConcurrencyExceeded: {
            /** @constant */
            error: "concurrency_exceeded";
            limit: number;
            inflight: number;
            message: string;
        };
        FilesRefused: {
            /** @constant */
            error: "files_refused";
            message: string;
            codes: string[];
        };
        TemplateStatus: {
            running: boolean;
            restarts: number;
        };
        Health: {
            /** @constant */
            status: "ok";
            template?: components["schemas"]["TemplateStatus"];
        };
        /** @enum {string} */
        RunKind: "install" | "invoke" | "exec";
        RunSpec: {
            runId: string;
            kind: components["schemas"]["RunKind"];
            argv: string[];
            env?: {
                [key: string]: string;
            };
            /** @description Default /workspace. */
            cwd?: string;
            timeoutMs?: number;
            /** @description Answer 202 at once; the run goes on with no client. */
            detach?: boolean;
        };
        StartEvent: {
            invokeId: string;
            /** Format: date-time */
            startedAt: string;
        };
        LogEvent: {
            /** @enum {string} */
            stream: "stdout" | "stderr";
            data: string;
        };
        /** @enum {string} */
        ExitReason: "completed" | "canceled" | "timeout" | "error";
        ExitEvent: {
            invokeId: string;
            exitCode: number;
            durationMs: number;
            reason: components["schemas"]["ExitReason"];
        };
        DropEvent: {
            droppedBytes: number;
            droppedEvents: number;
        };
        Detached: {
            runId: string;
            /** @constant */
            detached: true;
        };
        RunItem: {
            runId: string;
            kind: components["schemas"]["RunKind"];
            /** Format: date-time */
            startedAt: string;
        };
        RunList: {
            items: components["schemas"]["RunItem"][];
            maxConcurrentInvokes: number;
        };
        RunRecord: {
            runId: string;
            kind: components["schemas"]["RunKind"];
            /** @enum {string} */
            state: "running" | "exited";
            /** Format: date-time */
            startedAt: string;
            detached: boolean;
            exitCode: number | null;
            durationMs: number | null;
            reason?: components["schemas"]["ExitReason"];
            /** Format: date-time */
            endedAt?: string;
        };
        RunRecords: {
            items: components["schemas"]["RunRecord"][];
        };
        CancelAccepted: {
            /** @constant */
            status: "canceling";
        };
        FileManifest: {
            files: {
                path: string;
                size: number;
                /** @description Permission bits; default 0644 less the umask. */
                mode?: number;
            }[];
        };
        FilesWritten: {
            written: number;
        };
        LogEntry: {
            /** @enum {string} */
            stream: "stdout" | "stderr";
            data: string;
        };
        LogSnapshot: {
            entries: components["schemas"]["LogEntry"][];
            truncated: boolean;
            droppedBytes: number;
        };
        Limits: {
            maxConcurrentInvokes: number;
        };
        TokenRequest: {
            token: string;
        };
        TokenReplaced: {
            /** @constant */
            status: "replaced";
        };
        FsEntry: {
            name: string;
            path: string;
            size: number;
            isDir: boolean;
            /** @enum {string} */
            type: "file" | "dir" | "symlink";
            /** @description As `ls -l` writes it: `-rw-r--r--`, `drwxr-xr-x`. */
            mode: string;
            /** @description Seconds since the epoch. */
            modifiedAt: number;
        };
        FsListing: {
            path: string;
            entries: components["schemas"]["FsEntry"][];
        };
        FsWritten: {
            path: string;
            size: number;
            sha256: string;
        };
        FsPath: {
            path: string;
        };
        FsOperation: {
            /** @enum {string} */
            op: "mkdir" | "move";
            /** @description Where a move goes. */
            to?: string;
        };
        Extracted: {
            files: number;
            bytes: number;
        };
        UsageSample: {
            /** Format: date-time */
            at: string;
            cpuCores: number;
            memoryBytes: number;
        };
        Usage: {
            /** Format: date-time */
            at: string;
            cpu: {
                cores: number;
                throttledSeconds: number;
                limitCores: number | null;
            };
            memory: {
                workingSetBytes: number;
                limitBytes: number | null;
            };
            workspace: {
                usedBytes: number;
                freeBytes: number;
                totalBytes: number;
            };
            processes: number;
            runs: {
                exec: number;
                invoke: number;
                configure: number;
            };
            terminals: number;
            /** @description Whether the Pod's cgroup could be read (false: CPU and memory figures are 0). */
            cgroup: boolean;
            history?: components["schemas"]["UsageSample"][];
        };
        Activity: {
            active: boolean;
            reasons: ("request" | "exec" | "invoke" | "configure" | "terminal" | "cpu")[];
            /** Format: date-time */
            lastActiveAt: string;
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
    health: {
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
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query?: {
                /** @description `true` (and no other query): every run kept, ended ones too (RunRecords) */
                all?: "true";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description RunList without a query, RunRecords with ?all=true */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunList"] | components["schemas"]["RunRecords"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startRun: {
        parameters: {
            query?: never;
            header?: {
                Upgrade?: "svc-run";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-ndjson": components["schemas"]["RunSpec"];
            };
        };
        responses: {
            /** @description The connection carries the run's events (the 200 answer's body), then closes */
            101: {
                headers: {
                    Upgrade?: "svc-run";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The run's events, numbered (`id:`), ending with `exit` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description A detached run (`"detach": true`), started */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Detached"];
                };
            };
            /** @description Not a run spec */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run of that id is in flight */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description At the cap of its kind */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConcurrencyExceeded"];
                };
            };
        };
    };
    runEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replay only the events after this id. */
                "Last-Event-ID"?: number;
            };
            path: {
                /** @description The run id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run's events; a reader going away leaves the run alone */
            200: {
                headers: {
                    "x-run-kind"?: components["schemas"]["RunKind"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Last-Event-ID is not an event id */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such run in flight or recently finished */
            404: {
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
            query?: never;
            header?: never;
            path: {
                /** @description The run id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Canceling */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelAccepted"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such run in flight */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putFiles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
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
                    "application/json": components["schemas"]["FilesWritten"];
                };
            };
            /** @description A path outside the workspace */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused before anything was written */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilesRefused"];
                };
            };
            /** @description Failed */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    logs: {
        parameters: {
            query?: {
                /** @description `true`: an SSE stream of `log` events, the kept output first */
                follow?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The output kept (JSON), or followed (SSE) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LogSnapshot"];
                    "text/event-stream": string;
                };
            };
            /** @description follow is not true or false */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Limits"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Limits"];
                };
            };
            /** @description Not an integer ≥ 1 */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenReplaced"];
                };
            };
            /** @description Not a token */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description This sandboxd cannot change its token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readPath: {
        parameters: {
            query: {
                /** @description An absolute path inside the workspace. */
                path: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A listing, or the file's bytes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsListing"];
                    "application/octet-stream": string;
                };
            };
            /** @description A range of the file */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Not modified */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: a path outside the workspace, a bad query or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing at that path */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description In the way: a folder, a file that is not one, an entry that exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The workspace volume is full */
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
    writePath: {
        parameters: {
            query: {
                /** @description An absolute path inside the workspace. */
                path: string;
                /** @description Octal permission bits, such as 0644 */
                mode?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description Replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsWritten"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsWritten"];
                };
            };
            /** @description Refused: a path outside the workspace, a bad query or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing at that path */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description In the way: a folder, a file that is not one, an entry that exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The workspace volume is full */
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
    changePath: {
        parameters: {
            query: {
                /** @description An absolute path inside the workspace. */
                path: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FsOperation"];
            };
        };
        responses: {
            /** @description Moved, or the folder existed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsPath"];
                };
            };
            /** @description Made */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FsPath"];
                };
            };
            /** @description Refused: a path outside the workspace, a bad query or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing at that path */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description In the way: a folder, a file that is not one, an entry that exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The workspace volume is full */
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
    deletePath: {
        parameters: {
            query: {
                /** @description An absolute path inside the workspace. */
                path: string;
                /** @description `true` to delete a folder with entries */
                recursive?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: a path outside the workspace, a bad query or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing at that path */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description In the way: a folder, a file that is not one, an entry that exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The workspace volume is full */
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
    headPath: {
        parameters: {
            query: {
                /** @description An absolute path inside the workspace. */
                path: string;
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
                content?: never;
            };
            /** @description Refused: a path outside the workspace, a bad query or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing at that path */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description In the way: a folder, a file that is not one, an entry that exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The workspace volume is full */
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
    downloadArchive: {
        parameters: {
            query: {
                /** @description An absolute path inside the workspace. */
                path: string;
                /** @description Default zip */
                format?: "zip" | "tar" | "tar.gz";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The archive, streamed */
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
            /** @description Refused: a path outside the workspace, a bad query or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing at that path */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description In the way: a folder, a file that is not one, an entry that exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The workspace volume is full */
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
    extractArchive: {
        parameters: {
            query: {
                /** @description An absolute path inside the workspace. */
                path: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-tar": string;
                "application/gzip": string;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Extracted"];
                };
            };
            /** @description Refused: a path outside the workspace, a bad query or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing at that path */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description In the way: a folder, a file that is not one, an entry that exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The workspace volume is full */
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
    usage: {
        parameters: {
            query?: {
                /** @description Add the samples of the last this many seconds */
                history?: number;
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
                    "application/json": components["schemas"]["Usage"];
                };
            };
            /** @description history is not a whole number of seconds */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    activity: {
        parameters: {
            query?: {
                /** @description Cores above which the CPU counts as activity */
                cpuThreshold?: number;
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
                    "application/json": components["schemas"]["Activity"];
                };
            };
            /** @description cpuThreshold is not a number ≥ 0 */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid bearer token */
            401: {
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
                /** @description 1 to 1000, default 80 */
                cols?: number;
                /** @description 1 to 1000, default 24 */
                rows?: number;
                /** @description Run with sh -c instead of the shell */
                command?: string;
            };
            header: {
                Upgrade: "svc-terminal";
                /** @description A ticket each session may use once */
                "x-ticket-id"?: string;
                "x-ticket-ttl-ms"?: number;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session's frames */
            101: {
                headers: {
                    Upgrade?: "svc-terminal";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad size, query or ticket TTL */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Refused: no valid bearer token, or not the Upgrade this endpoint takes. A bare answer, and the connection closed. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The ticket was used already */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description At the cap of sessions */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The shell did not start */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openTunnel: {
        parameters: {
            query?: never;
            header: {
                Upgrade: "tcp";
            };
            path: {
                /** @description 1 to 65535, as digits */
                port: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Joined */
            101: {
                headers: {
                    Upgrade?: "tcp";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused: no valid bearer token, or not the Upgrade this endpoint takes. A bare answer, and the connection closed. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Nothing listens on that port */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
}
