// The runner with a probe the test controls. No test waits on timing luck: runs block until
// released or cancelled, and every wait has a generous deadline that only a bug would reach.
#include "runs/runner.hpp"

#include <doctest/doctest.h>

#include <thread>

#include "probes/registry.hpp"
#include "support/eventually.hpp"
#include "support/fake_probe.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace hostprobe::runs;
using hostprobe::testing::FakeProbe;
using namespace std::chrono_literals;

namespace {

struct RunnerFixture {
    explicit RunnerFixture(RunnerOptions options = {16, 100, 2}) {
        auto exclusive = std::make_unique<FakeProbe>("measure", true);
        auto light = std::make_unique<FakeProbe>("light", false);
        measure = exclusive.get();
        quick = light.get();
        registry.add(std::move(exclusive));
        registry.add(std::move(light));
        runner = std::make_unique<Runner>(
            options, registry, ProbeContextSource{root, host_state},
            [this](const Run& run) {
                {
                    // As others see it while the hook runs.
                    auto visible = runner->get(run.id);
                    std::lock_guard<std::mutex> lock(finished_mutex);
                    finished.push_back(run);
                    if (visible) visible_in_hook.push_back(visible->state);
                }
                finished_changed.notify_all();
            },
            [this](const Run& run) {
                // As others see it while the start is journaled.
                auto visible = runner->get(run.id);
                {
                    std::lock_guard<std::mutex> lock(finished_mutex);
                    started_in_hook.push_back(run.state);
                    if (visible) visible_at_start.push_back(visible->state);
                }
                if (while_starting) while_starting(run);
            });
        runner->start();
    }
    ~RunnerFixture() {
        measure->release();
        quick->release();
        runner->shutdown();
    }
    Run finished_run(const std::string& id) {
        auto run = runner->wait(id, 10s);
        REQUIRE(run.has_value());
        REQUIRE(is_finished(run->state));
        return *run;
    }

    std::vector<RunState> visible_in_hook;   // guarded by finished_mutex
    std::vector<RunState> started_in_hook;   // guarded by finished_mutex
    std::vector<RunState> visible_at_start;  // guarded by finished_mutex
    // What a test does while a run's start is being journaled; set while no run is queued.
    std::function<void(const Run&)> while_starting;
    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    host::HostFacts facts{host::collect_host_facts(root)};
    task::TaskState host_state{facts};
    ProbeRegistry registry;
    FakeProbe* measure = nullptr;
    FakeProbe* quick = nullptr;
    std::unique_ptr<Runner> runner;
    // The hook runs just after a run's state turns final, so waiters may see the state first.
    bool wait_finished_hooks(size_t count) {
        std::unique_lock<std::mutex> lock(finished_mutex);
        return finished_changed.wait_for(lock, 10s, [&] { return finished.size() >= count; });
    }

    std::mutex finished_mutex;
    std::condition_variable finished_changed;
    std::vector<Run> finished;
};

}  // namespace

TEST_CASE("a run goes from queued to succeeded with its normalized params and result") {
    RunnerFixture fixture;
    auto submitted = fixture.runner->submit("light", {{"value", 7}}, "api");
    REQUIRE(submitted.ok());
    CHECK(submitted->state == RunState::queued);
    CHECK(submitted->params ==
          nlohmann::json{{"block", false}, {"fail", false}, {"throw", false}, {"value", 7}});
    const Run run = fixture.finished_run(submitted->id);
    CHECK(run.state == RunState::succeeded);
    CHECK(run.result["value"] == 7);
    CHECK(run.text_report == "value 7\n");
    CHECK(run.progress == 1.0);
    CHECK(run.started_at.has_value());
    CHECK(run.finished_at >= run.started_at);
    CHECK(run.trigger == "api");
}

TEST_CASE("a run that found what its probe's last run found shares its result and text") {
    RunnerFixture fixture;
    const Run first =
        fixture.finished_run(fixture.runner->submit("light", {{"value", 7}}, "api")->id);
    const Run same =
        fixture.finished_run(fixture.runner->submit("light", {{"value", 7}}, "api")->id);
    const Run other =
        fixture.finished_run(fixture.runner->submit("light", {{"value", 8}}, "api")->id);
    REQUIRE(first.state == RunState::succeeded);
    REQUIRE(same.state == RunState::succeeded);
    CHECK(same.result.shares_text_with(first.result));
    CHECK(same.text_report.shares_with(first.text_report));
    CHECK(same.text_report == "value 7\n");
    // Another finding keeps its own.
    CHECK_FALSE(other.result.shares_text_with(same.result));
    CHECK_FALSE(other.text_report.shares_with(same.text_report));
    CHECK(other.result["value"] == 8);
    CHECK(other.text_report == "value 8\n");
}

TEST_CASE("bad submissions are refused before they queue") {
    RunnerFixture fixture;
    auto unknown = fixture.runner->submit("nope", {}, "api");
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().code == ErrorCode::not_found);
    CHECK(unknown.error().message == "unknown probe 'nope'; probes: measure, light");
    auto bad = fixture.runner->submit("light", {{"value", 500}}, "api");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == ErrorCode::invalid_argument);
    CHECK(bad.error().message == "'value' is 500; it must be from 0 to 100");
    CHECK(fixture.runner->list({}).empty());
}

TEST_CASE("a full queue refuses with busy, and frees up as runs finish") {
    RunnerFixture fixture({2, 100, 1});
    auto first = fixture.runner->submit("measure", {{"block", true}}, "api");
    REQUIRE(first.ok());
    REQUIRE(fixture.measure->wait_started(1));
    REQUIRE(fixture.runner->submit("measure", {{"block", true}}, "api").ok());
    REQUIRE(fixture.runner->submit("measure", {{"block", true}}, "api").ok());
    CHECK(fixture.runner->queued_count() == 2);
    CHECK(fixture.runner->running_count() == 1);
    auto refused = fixture.runner->submit("light", {}, "api");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::busy);
    CHECK(fixture.runner->seconds_until_slot() >= 1);
    fixture.measure->release();
    for (const auto& run : fixture.runner->list({}))
        CHECK(fixture.finished_run(run.id).state == RunState::succeeded);
    CHECK(fixture.runner->submit("light", {}, "api").ok());
}

TEST_CASE("cancelling: a queued run is dropped, a running one stops and keeps a partial result") {
    RunnerFixture fixture({16, 100, 1});
    auto running = fixture.runner->submit("measure", {{"block", true}}, "api");
    REQUIRE(fixture.measure->wait_started(1));
    auto queued = fixture.runner->submit("measure", {{"block", true}}, "api");
    REQUIRE(queued.ok());

    auto dropped = fixture.runner->cancel(queued->id);
    REQUIRE(dropped.ok());
    CHECK(dropped->state == RunState::cancelled);
    CHECK(dropped->started_at == std::nullopt);

    auto stopping = fixture.runner->cancel(running->id);
    REQUIRE(stopping.ok());
    const Run stopped = fixture.finished_run(running->id);
    CHECK(stopped.state == RunState::cancelled);
    CHECK(stopped.result["partial"] == true);
    CHECK(stopped.result["value"] == 1);
    CHECK(fixture.measure->started() == 1);  // the dropped run never started

    auto again = fixture.runner->cancel(running->id);
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().code == ErrorCode::conflict);
    CHECK(fixture.runner->cancel("nope").error().code == ErrorCode::not_found);
}

TEST_CASE("probes that measure the machine never run two at once; light ones pass them") {
    RunnerFixture fixture({16, 100, 3});
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i)
        ids.push_back(fixture.runner->submit("measure", {{"block", true}}, "api")->id);
    REQUIRE(fixture.measure->wait_started(1));
    // A light probe runs while the exclusive one is still blocked.
    auto light = fixture.runner->submit("light", {}, "api");
    CHECK(fixture.finished_run(light->id).state == RunState::succeeded);
    CHECK(fixture.runner->get(ids[0])->state == RunState::running);
    CHECK(fixture.runner->get(ids[1])->state == RunState::queued);
    fixture.measure->release();
    for (const auto& id : ids)
        CHECK(fixture.finished_run(id).state == RunState::succeeded);
    CHECK(fixture.measure->max_running() == 1);
}

TEST_CASE("waiting returns the run as it is when the time is up") {
    RunnerFixture fixture;
    auto run = fixture.runner->submit("measure", {{"block", true}}, "api");
    REQUIRE(fixture.measure->wait_started(1));
    auto waited = fixture.runner->wait(run->id, 50ms);
    REQUIRE(waited.has_value());
    CHECK(waited->state == RunState::running);
    CHECK(waited->progress == 0.5);
    CHECK_FALSE(fixture.runner->wait("nope", 10ms).has_value());
}

TEST_CASE("errors and exceptions fail the run, and the runner goes on") {
    RunnerFixture fixture;
    auto failing = fixture.runner->submit("light", {{"fail", true}}, "api");
    auto throwing = fixture.runner->submit("light", {{"throw", true}}, "api");
    const Run failed = fixture.finished_run(failing->id);
    CHECK(failed.state == RunState::failed);
    CHECK(failed.error == "it failed on purpose");
    const Run thrown = fixture.finished_run(throwing->id);
    CHECK(thrown.state == RunState::failed);
    CHECK(thrown.error == "the probe failed: boom");
    CHECK(fixture.finished_run(fixture.runner->submit("light", {}, "api")->id).state ==
          RunState::succeeded);
    CHECK(fixture.wait_finished_hooks(3));
    std::lock_guard<std::mutex> lock(fixture.finished_mutex);
    CHECK(fixture.finished.size() == 3);
}

TEST_CASE("history keeps the newest finished runs; listing filters and is newest first") {
    RunnerFixture fixture({16, 3, 1});
    std::vector<std::string> ids;
    for (int i = 0; i < 5; ++i) {
        ids.push_back(fixture.runner->submit("light", {{"value", i}}, "api")->id);
        fixture.finished_run(ids.back());
    }
    const auto listed = fixture.runner->list({});
    REQUIRE(listed.size() == 3);
    CHECK(listed[0].id == ids[4]);
    CHECK(listed[2].id == ids[2]);
    CHECK_FALSE(fixture.runner->get(ids[0]).has_value());
    CHECK(fixture.runner->list({.probe = "measure"}).empty());
    CHECK(fixture.runner->list({.state = RunState::succeeded, .limit = 2}).size() == 2);
    CHECK(fixture.runner->latest_succeeded_id("light") == ids[4]);
}

TEST_CASE("a listing's version moves with every change to a run and with nothing else") {
    RunnerFixture fixture({16, 2, 1});
    const std::string empty = fixture.runner->listing({}).version;
    CHECK(fixture.runner->listing({.probe = "light"}).version == empty);  // looking changes nothing

    // Queued, then started with its progress at 0.5 (the fake probe reports it as it starts):
    // the worker may take it before a listing could see it queued, so both are one step here.
    const auto id = fixture.runner->submit("measure", {{"block", true}}, "api")->id;
    REQUIRE(
        testing::eventually([&] { return fixture.runner->get(id)->progress == 0.5; }, 10s, 1ms));
    const auto running = fixture.runner->listing({});
    CHECK(running.version != empty);
    CHECK(fixture.runner->listing({}).version == running.version);
    fixture.measure->release();
    fixture.finished_run(id);
    const std::string finished = fixture.runner->listing({}).version;
    CHECK(finished != running.version);

    // A run leaving the history is a change too, even to a listing that never showed it.
    fixture.finished_run(fixture.runner->submit("light", {{"value", 1}}, "api")->id);
    const auto before_drop = fixture.runner->listing({.probe = "measure"});
    REQUIRE(before_drop.runs.size() == 1);
    fixture.finished_run(fixture.runner->submit("light", {{"value", 9}}, "api")->id);
    const auto after_drop = fixture.runner->listing({.probe = "measure"});
    CHECK(after_drop.runs.empty());
    CHECK(after_drop.version != before_drop.version);

    // Another life of the agent with the same (restored) runs has other versions.
    RunnerFixture another({16, 2, 1});
    CHECK(another.runner->listing({}).version != empty);
}

TEST_CASE("shutdown cancels what is queued and running, then refuses") {
    RunnerFixture fixture({16, 100, 1});
    auto running = fixture.runner->submit("measure", {{"block", true}}, "api");
    REQUIRE(fixture.measure->wait_started(1));
    auto queued = fixture.runner->submit("measure", {}, "api");
    fixture.runner->shutdown();
    CHECK(fixture.runner->get(running->id)->state == RunState::cancelled);
    CHECK(fixture.runner->get(queued->id)->state == RunState::cancelled);
    auto late = fixture.runner->submit("light", {}, "api");
    REQUIRE_FALSE(late.ok());
    CHECK(late.error().code == ErrorCode::unavailable);
}

TEST_CASE("probes run at the configured niceness, so HTTP threads come first") {
    const int own = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    {
        RunnerFixture fixture({16, 100, 2, 10});
        auto submitted = fixture.runner->submit("light", {{"value", 1}}, "api");
        REQUIRE(submitted.ok());
        CHECK(fixture.finished_run(submitted->id).result["nice"] == std::max(own, 10));
    }
    {
        RunnerFixture fixture({16, 100, 2, 0});  // 0: left as it is
        auto submitted = fixture.runner->submit("light", {{"value", 1}}, "api");
        REQUIRE(submitted.ok());
        CHECK(fixture.finished_run(submitted->id).result["nice"] == own);
    }
}

TEST_CASE("an agent already nicer than --probe-nice is not made less nice") {
    int seen = -100;
    // Threads inherit their creator's niceness; this one stands for `nice -n 15 hostprobe`.
    std::thread nicer([&] {
        // No REQUIRE off the main thread: a failure leaves `seen` at -100.
        if (setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 15) != 0) return;
        RunnerFixture fixture({16, 100, 2, 10});
        auto submitted = fixture.runner->submit("light", {{"value", 1}}, "api");
        if (!submitted.ok()) return;
        if (auto run = fixture.runner->wait(submitted->id, 10s))
            seen = run->result.get().value("nice", -100);
    });
    nicer.join();
    CHECK(seen == 15);
}

TEST_CASE("the finished hook (metrics, journal) runs before the run is seen finished") {
    RunnerFixture fixture;
    auto submitted = fixture.runner->submit("light", {{"value", 3}}, "api");
    REQUIRE(submitted.ok());
    fixture.quick->release();
    CHECK(fixture.finished_run(submitted->id).state == RunState::succeeded);
    std::lock_guard<std::mutex> lock(fixture.finished_mutex);
    REQUIRE(fixture.visible_in_hook.size() == 1);
    CHECK(fixture.visible_in_hook[0] == RunState::running);
}

TEST_CASE("the started hook (journal) runs before anyone can see the run running") {
    RunnerFixture fixture;
    auto submitted = fixture.runner->submit("light", {{"value", 3}}, "api");
    REQUIRE(submitted.ok());
    fixture.quick->release();
    CHECK(fixture.finished_run(submitted->id).state == RunState::succeeded);
    std::lock_guard<std::mutex> lock(fixture.finished_mutex);
    REQUIRE(fixture.started_in_hook.size() == 1);
    CHECK(fixture.started_in_hook[0] == RunState::running);  // what the journal records
    REQUIRE(fixture.visible_at_start.size() == 1);
    CHECK(fixture.visible_at_start[0] == RunState::queued);  // what readers saw meanwhile
}

TEST_CASE("a run cancelled while its start is journaled ends cancelled, never running on") {
    RunnerFixture fixture;
    std::optional<Result<Run>> cancelled;
    fixture.while_starting = [&](const Run& run) { cancelled = fixture.runner->cancel(run.id); };
    // It blocks until released or stopped: only the cancel can end it.
    auto submitted = fixture.runner->submit("measure", {{"block", true}}, "api");
    REQUIRE(submitted.ok());
    const Run finished = fixture.finished_run(submitted->id);
    CHECK(finished.state == RunState::cancelled);
    CHECK(finished.started_at.has_value());
    REQUIRE(cancelled.has_value());
    CHECK(cancelled->ok());
    CHECK(fixture.runner->running_count() == 0);
    // The exclusive slot is free again: another measuring run starts and finishes.
    fixture.while_starting = nullptr;
    auto next = fixture.runner->submit("measure", {{"value", 2}}, "api");
    REQUIRE(next.ok());
    CHECK(fixture.finished_run(next->id).state == RunState::succeeded);
}

TEST_CASE(
    "runs an earlier build recorded are restored with their params as this build names them") {
    RunnerFixture fixture;
    auto recorded = [](std::string id, std::string probe, nlohmann::json params) {
        Run run;
        run.id = std::move(id);
        run.probe = std::move(probe);
        run.params = std::move(params);
        run.state = RunState::succeeded;
        return run;
    };
    fixture.runner->restore({
        // "block" and "throw" were added since, "retired" was removed since.
        recorded("r1", "light", {{"fail", false}, {"value", 7}, {"retired", "x"}}),
        // A limit narrowed since: kept as it ran rather than lost.
        recorded("r2", "light", {{"value", 500}}),
        // A probe this build lacks: nothing to name its params by.
        recorded("r3", "gone", {{"anything", 1}}),
    });
    CHECK(fixture.runner->get("r1")->params ==
          nlohmann::json{{"block", false}, {"fail", false}, {"throw", false}, {"value", 7}});
    CHECK(fixture.runner->get("r2")->params == nlohmann::json{{"value", 500}});
    CHECK(fixture.runner->get("r3")->params == nlohmann::json{{"anything", 1}});
}

TEST_CASE("every built-in probe's normalized params normalize to themselves, as restore needs") {
    probes::StoragePolicy storage;
    storage.allowed_dirs = {"/data"};
    const ProbeRegistry registry = probes::builtin_probes({.storage = storage});
    for (const std::string& name : registry.names()) {
        CAPTURE(name);
        const ParamTable& table = registry.find(name)->params();
        auto once = table.normalize(nlohmann::json::object());
        REQUIRE(once.ok());
        auto twice = table.normalize(*once);
        REQUIRE(twice.ok());
        CHECK(*twice == *once);
    }
}
