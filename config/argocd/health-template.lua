-- Argo CD health check of svc.io SandboxTemplate and ClusterSandboxTemplate
-- (resource.customizations.health.svc.io_SandboxTemplate and ..._ClusterSandboxTemplate).
-- A template has no status: once the apiserver has accepted it, Sandboxes can use it.
return { status = "Healthy", message = obj.kind .. " " .. obj.metadata.name .. " is ready for Sandboxes" }
