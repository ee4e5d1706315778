-- Argo CD health check of a svc.io Sandbox (resource.customizations.health.svc.io_Sandbox).
-- Argo CD runs it with the live object in the global `obj` and reads the table it returns.
-- Lua 5.1 as Argo CD's interpreter speaks it; the test runs it with lua5.4.
local hs = { status = "Progressing", message = "Waiting for the operator to pick up the Sandbox" }
local status = obj.status
if status == nil or status.phase == nil then
  return hs
end
-- A spec change (stopped: true, say) the operator has not acted on yet: the phase is old news.
local generation = obj.metadata and obj.metadata.generation
if generation ~= nil and status.observedGeneration ~= nil and status.observedGeneration < generation then
  hs.message = "Waiting for the operator to act on generation " .. generation
  return hs
end
local phase = status.phase
local message = status.message
if message == nil or message == "" then
  message = "Sandbox is " .. phase
end
if phase == "Running" then
  hs.status = "Healthy"
elseif phase == "Pending" or phase == "Creating" then
  hs.status = "Progressing"
elseif phase == "Stopped" then
  hs.status = "Suspended"
elseif phase == "Error" then
  hs.status = "Degraded"
else
  hs.status = "Unknown"
  message = "Unknown phase " .. phase
end
hs.message = message
return hs
