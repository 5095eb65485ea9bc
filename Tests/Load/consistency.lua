-- wrk script for the reload storm: every 200 answer's ETag and body must be the same for one catalog
-- generation (a mixed snapshot would pair one generation with two bodies). Prints the counts in done().
local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    seen = {}
    mismatches = 0
    generations = 0
end

function response(status, headers, body)
    if status ~= 200 then
        return
    end
    local generation = headers["X-MDMConf-Catalog-Generation"] or "?"
    local answer = (headers["ETag"] or "?") .. "|" .. body
    local earlier = seen[generation]
    if earlier == nil then
        seen[generation] = answer
        generations = generations + 1
    elseif earlier ~= answer then
        mismatches = mismatches + 1
    end
end

function done(summary, latency, requests)
    local total, most = 0, 0
    for _, thread in ipairs(threads) do
        total = total + thread:get("mismatches")
        most = math.max(most, thread:get("generations"))
    end
    io.write(string.format("consistency: %d mixed answers; %d generations seen by one thread\n", total, most))
end
