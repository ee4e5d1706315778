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
        /** List sandboxes (non-admins see their own) */
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
        /** Resume a stopped sandbox */
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
        get?: never;
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
        /** Run the entrypoint with the raw body as stdin (agent mode; at most 16 MiB); streams `start`, `log`, `exit`, optional `error` */
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
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ForwardedPort: {
            port: number;
            protocol: string;
            internalUrl: string;
            previewUrl?: string;
        };
        CreateSandboxRequest: {
            /**
             * @default code
             * @enum {string}
             */
            mode?: "code" | "agent";
            templateRef: {
                name: string;
                /**
                 * @default ClusterSandboxTemplate
                 * @enum {string}
                 */
                kind?: "ClusterSandboxTemplate" | "SandboxTemplate";
            };
            image?: {
                repository?: string;
            };
            /** @description Go-style duration such as 90s or 1h30m; 0 means infinite */
            timeout?: string;
            /** @description Go-style duration such as 90s or 1h30m; 0 means infinite */
            idleTimeout?: string;
            /** @default false */
            stopped?: boolean;
            resources?: {
                requests?: {
                    /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                    cpu?: number | string;
                    /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                    memory?: number | string;
                };
                limits?: {
                    /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                    cpu?: number | string;
                    /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                    memory?: number | string;
                };
                /** @description Size of the /workspace volume */
                storage?: number | string;
            };
            env?: {
                name: string;
                /** @default  */
                value?: string;
            }[];
            ports?: {
                port: number;
                /**
                 * @default http
                 * @enum {string}
                 */
                protocol?: "http";
            }[];
            credentials?: {
                env?: {
                    name: string;
                    secretName: string;
                    key: string;
                }[];
                files?: {
                    secretName: string;
                    /** Format: starts_with */
                    mountPath: string;
                }[];
            };
            harness?: {
                agent?: {
                    entrypoint?: string[];
                    installCommand?: string[];
                    /**
                     * Format: starts_with
                     * @default /workspace
                     */
                    workingDir?: string;
                    env?: {
                        name: string;
                        /** @default  */
                        value?: string;
                    }[];
                    maxConcurrentInvokes?: number;
                    /** @description Go-style duration such as 90s or 1h30m; 0 means infinite */
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
        };
        CloneResponse: {
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
        CreateApiKeyRequest: {
            user: string;
            /** @default [] */
            groups?: string[];
            /** @default false */
            admin?: boolean;
        };
        Policy: {
            maxSandboxesPerUser?: number;
            maxSandboxesTotal?: number;
            maxCpu?: number | string;
            maxMemory?: number | string;
            maxStorage?: number | string;
            maxTimeout?: string;
            maxIdleTimeout?: string;
            allowedTemplates?: string[];
            approvedRegistries?: string[];
            maxAgentSandboxes?: number;
            allowedAgentImages?: string[];
            maxConcurrentInvokesPerSandbox?: number;
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
                content: string;
            }[];
            entrypoint: string[];
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
        Sandbox: {
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
            spec: {
                /**
                 * @default code
                 * @enum {string}
                 */
                mode?: "code" | "agent";
                templateRef: {
                    name: string;
                    /**
                     * @default ClusterSandboxTemplate
                     * @enum {string}
                     */
                    kind?: "ClusterSandboxTemplate" | "SandboxTemplate";
                };
                image?: {
                    repository?: string;
                };
                /** @description Go-style duration such as 90s or 1h30m; 0 means infinite */
                timeout?: string;
                /** @description Go-style duration such as 90s or 1h30m; 0 means infinite */
                idleTimeout?: string;
                createdBy?: string;
                cloneFromSnapshot?: string;
                /** @default false */
                stopped?: boolean;
                resources?: {
                    requests?: {
                        /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                        cpu?: number | string;
                        /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                        memory?: number | string;
                    };
                    limits?: {
                        /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                        cpu?: number | string;
                        /** @description Kubernetes quantity, such as 500m, 2Gi or 1 */
                        memory?: number | string;
                    };
                    /** @description Size of the /workspace volume */
                    storage?: number | string;
                };
                env?: {
                    name: string;
                    /** @default  */
                    value?: string;
                }[];
                ports?: {
                    port: number;
                    /**
                     * @default http
                     * @enum {string}
                     */
                    protocol?: "http";
                }[];
                credentials?: {
                    env?: {
                        name: string;
                        secretName: string;
                        key: string;
                    }[];
                    files?: {
                        secretName: string;
                        /** Format: starts_with */
                        mountPath: string;
                    }[];
                };
                harness?: {
                    agent?: {
                        entrypoint?: string[];
                        installCommand?: string[];
                        /**
                         * Format: starts_with
                         * @default /workspace
                         */
                        workingDir?: string;
                        env?: {
                            name: string;
                            /** @default  */
                            value?: string;
                        }[];
                        maxConcurrentInvokes?: number;
                        /** @description Go-style duration such as 90s or 1h30m; 0 means infinite */
                        defaultInvokeTimeout?: string;
                    };
                };
            };
            status: {
                /** @enum {string} */
                phase?: "Pending" | "Creating" | "Running" | "Stopped" | "Error";
                message?: string;
                podName?: string;
                observedGeneration?: number;
                conditions?: {
                    type: string;
                    /** @enum {string} */
                    status: "True" | "False" | "Unknown";
                    reason: string;
                    /** @default  */
                    message?: string;
                    /** Format: date-time */
                    lastTransitionTime: string;
                    observedGeneration?: number;
                }[];
                clonedFrom?: string;
                forwardedPorts?: components["schemas"]["ForwardedPort"][];
                resolvedTemplate?: string;
                agentConfigure?: {
                    /** Format: date-time */
                    lastConfiguredAt?: string;
                    installCommandHash?: string;
                    entrypoint?: string[];
                    installExitCode?: number;
                    maxConcurrentInvokes?: number;
                };
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
        };
        AuditList: {
            items: components["schemas"]["AuditRecord"][];
            continue?: string;
        };
        PolicyViolation: {
            /** @constant */
            error: "policy_violation";
            violations: {
                code: string;
                message: string;
            }[];
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
        OpenApiDocument: {
            [key: string]: unknown;
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
                    "application/json": components["schemas"]["SandboxList"];
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
                    "text/event-stream": string;
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
                    "text/event-stream": string;
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
        };
    };
}
