-- get_by_name.lua — wrk script of tests/bench/resources.sh: every request
-- GETs BENCH_GET_PATH .. i for a random i in [0, BENCH_GET_N), so that the
-- server looks a different object up each time (nginx, the peer, maps every
-- such path to one static file).
local n = tonumber(os.getenv("BENCH_GET_N") or "1")
local base = os.getenv("BENCH_GET_PATH") or "/"
local next_id = 1

function setup(thread)
   thread:set("tid", next_id)
   next_id = next_id + 1
end

function init(args)
   math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
end

function request()
   return wrk.format("GET", base .. math.random(0, n - 1))
end
