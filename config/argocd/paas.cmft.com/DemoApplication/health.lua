-- Argo CD health check of a DemoApplication (paas.cmft.com): install it as
-- resource.customizations.health.paas.cmft.com_DemoApplication in argocd-cm.
-- It reads the conditions the operator writes for kstatus: Stalled (Degraded), Ready
-- (Healthy), Reconciling (Progressing), and the generation they describe. Argo CD runs it
-- without Lua's string library.
local hs = {}
if obj.status == nil or obj.status.conditions == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to report on the DemoApplication"
  return hs
end
if obj.metadata.generation ~= nil and (obj.status.observedGeneration == nil or obj.status.observedGeneration < obj.metadata.generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to act on the latest spec"
  return hs
end
local found = {}
for _, condition in ipairs(obj.status.conditions) do
  found[condition.type] = condition
end
local stalled, ready, reconciling = found["Stalled"], found["Ready"], found["Reconciling"]
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.reason .. ": " .. stalled.message
elseif ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message
elseif reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = reconciling.reason .. ": " .. reconciling.message
else
  hs.status = "Progressing"
  hs.message = "Waiting for the DemoApplication to become Ready"
end
return hs
