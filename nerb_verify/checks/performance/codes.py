"""Finding codes of the performance family (each listed on docs/findings/performance.md)."""

from __future__ import annotations

from nerb_verify.codes import register

SECTION_EMPTY = register(
    "performance.section_empty", "The performance section is not evaluated or has no workloads.",
    "Performance evidence is required: an unevaluated or empty section, or a missing collection, fails closed.")
SECTION_MALFORMED = register(
    "performance.section_malformed", "Part of the performance section has an unexpected shape and was not checked.",
    "A value had a type the contract does not allow, so the check that needed it could not run. It fails closed.")
DESCRIPTOR_ORDER = register(
    "performance.descriptor_order", "A performance collection is not sorted by id or repeats an id.",
    "Banks, inputs, harnesses, workloads, baselines, comparisons and models must be sorted by unique id.")
DESCRIPTOR_HASH = register(
    "performance.descriptor_hash", "A descriptor or operation-spec hash does not match its content.",
    "descriptor_sha256 of banks, inputs, harnesses and baselines is the canonical hash of the descriptor without "
    "that key; a harness operation_spec_sha256 is the hash of its frozen operation specification.")
WORKLOAD_HASH = register(
    "performance.workload_hash", "A workload_sha256 does not match the workload's plan identity.",
    "workload_sha256 hashes the 18 plan keys (phase, harness, bank, input, baseline, unit, work, warmups, "
    "concurrency, process model, statistic methods); timings are not part of it.")
COMPARISON_HASH = register(
    "performance.comparison_hash", "A comparison or break-even model plan hash does not match its plan.",
    "comparison_plan_sha256 and model_plan_sha256 commit kinds, ids, metric, direction, frozen policy and roles, "
    "never measured values or outcomes.")
MANIFEST_HASH = register(
    "performance.manifest_hash", "performance_manifest_sha256 does not match the recomputed performance manifest.",
    "The manifest hash is recomputed from recomputed inner hashes; evidence, report, manifest and frozen target "
    "must all carry it.")
RUN_HASH = register(
    "performance.run_hash", "run_sha256 of performance-report.json does not match the report.",
    "run_sha256 is the canonical hash of the whole report without that key, samples included.")
PLAN_HASH = register(
    "performance.plan_hash", "plan_sha256 does not match the plan rebuilt from the public report.",
    "The private plan is reconstructable from the public report (both profiles); NERB does not check it, we do.")
REPORT_MISMATCH = register(
    "performance.report_mismatch", "performance-report.json disagrees with the evidence.",
    "The report's performance section, software, environment and manifest hash must equal the evidence's.")
REPORT_ENVELOPE = register(
    "performance.report_envelope", "performance-report.json has an invalid envelope.",
    "The report must be a run (profile 'decision' or 'smoke') of suite enron_cache_value, schema "
    "nerb.enron_performance_run.v1, benchmark enron, never access the sealed test, and carry the exact passed privacy "
    "object. (A smoke profile is valid but not decision grade: performance.not_decision_profile.)")
DESCRIPTOR_KIND = register(
    "performance.descriptor_kind", "A bank's or input's kind disagrees with its generator.",
    "The evaluated bank and the real input come from the benchmark itself and have no generator; every synthetic "
    "scale bank and synthetic input names the generator that produced it (spec 20 section 2: generator null "
    "exactly for evaluated banks and real inputs).")
SMOKE_PROFILE_SHAPE = register(
    "performance.smoke_profile_shape", "A smoke-profile report carries decision-grade structure.",
    "A smoke run is never decision grade: every workload has decision_grade and promotion_gate false, and there are "
    "no same-path or cross-path comparisons and no break-even models. It is the smoke plan: the seven frozen smoke "
    "cells (real_cold_compile, real_helper_cache_miss, real_helper_cache_hit, real_direct_throughput, "
    "real_end_to_end, scale_1000_direct, scale_1000_concurrency_4), optionally the two setup cells and the two "
    "explore_* cells, nothing else (no control twins), each with exactly 5 samples, one work unit per sample and no "
    "baseline (an explore_* cell 100). A report that relabels a decision run as smoke (to escape the decision-grade requirements), or "
    "drops a smoke cell, is rejected in every scope.")
DECISION_GRADE_MISMATCH = register(
    "performance.decision_grade_mismatch", "The report's decision_grade differs from the recomputed one.",
    "decision_grade (passed and failure codes) is recomputed from the recomputed statistics and comparisons.")
INVENTORY_MISSING = register(
    "performance.inventory_missing", "An input's inventory file is missing or did not load.",
    "Every input descriptor binds inventories/<id>.json; without it no throughput denominator can be checked.")
INVENTORY_HASH = register(
    "performance.inventory_hash", "An inventory file does not match its inventory_ref.",
    "The file's raw SHA-256 and size must equal inventory_ref.sha256/bytes, and the file must be the canonical "
    "compact JSON of its rows (its content id).")
INVENTORY_SHAPE = register(
    "performance.inventory_shape", "An inventory is not a non-empty list of {bytes, records} integer rows.",
    "Inventory rows hold exactly two non-negative integers per document and nothing else.")
INVENTORY_ARITHMETIC = register(
    "performance.inventory_arithmetic", "An input descriptor disagrees with its inventory.",
    "documents, bytes, records, both distributions, hit density and size cohort are recomputed from the "
    "inventory rows and must be equal exactly; artifact.bytes must equal bytes.")
BANK_COMPOSITION = register(
    "performance.bank_composition", "A bank's totals disagree with its taxonomy.",
    "active_entities, active_names, active_aliases and active_patterns are sums over the taxonomy rows; taxon "
    "classes are unique; every synthetic scale bank has exactly the evaluated bank's entity classes.")
BASELINE_CAPABILITY = register(
    "performance.baseline_capability", "A baseline's declared capabilities do not match what it is.",
    "A baseline whose semantic_equivalence is exact must support literal patterns, regex patterns, aliases, canonical "
    "mapping and Unicode; otherwise it cannot serve as an exact twin or an exact cache-value baseline. A baseline "
    "measured by one of the two frozen exploratory harnesses (generic_regex_harness: an e-mail-format regex; "
    "python_literal_harness: a literal catalog scan) is not_equivalent and states exactly that implementation's "
    "capabilities, so the capability differences the charter requires are not understated.")
UNKNOWN_REFERENCE = register(
    "performance.unknown_reference", "A workload refers to an unknown descriptor or carries a stale reference hash.",
    "harness_id, bank_id, input_id and baseline_id must exist, and harness_sha256, bank_hash and input_sha256 must "
    "equal the referenced descriptor's values; inputs must reference a known bank.")
UNUSED_DESCRIPTOR = register(
    "performance.unused_descriptor", "A bank, input, harness or baseline is not used by any workload.",
    "Every descriptor must be exercised by at least one workload.")
INVALID_SAMPLE = register(
    "performance.invalid_sample", "A timing sample is unavailable, out of range or not a whole number of ns.",
    "Samples are inline seconds in [1e-9, 86400], each exactly ns/1e9 for an integer ns; at least five.")
STATISTIC_MISMATCH = register(
    "performance.statistic_mismatch", "A stored statistic is not supported by the raw samples.",
    "Every stats field is recomputed from the raw samples with the charter's definitions (median even rule, "
    "unscaled MAD, nearest-rank p95/p99, rates from the median and the input totals) and compared under the float "
    "policy (docs/performance-float-policy.md).")
RSS_SAMPLES = register(
    "performance.rss_samples", "RSS samples are missing, not positive, misaligned, or the peak is not their maximum.",
    "One positive integer RSS sample per timing sample; peak_rss_bytes is their maximum, null only if none.")
RSS_DECREASING = register(
    "performance.rss_decreasing", "RSS falls within the samples one worker process took.",
    "rss_samples_bytes is the worker's own ru_maxrss after each sample, a high-water mark that can only grow while "
    "the process lives. A reused-process workload runs each block of its comparison in one worker session, so "
    "within a block its RSS samples never decrease. A fall was written, not measured.")
RECORDS_PER_SAMPLE = register(
    "performance.records_per_sample", "records_per_sample is inconsistent with the unit or the input.",
    "Non-null iff the unit is whole_input; for NERB paths and exact baselines it equals input records x work.")
PHASE_CONTRACT = register(
    "performance.phase_contract", "A workload breaks the frozen phase rules.",
    "Fixed process model per phase, operation unit and no input for setup phases, whole_input for helper and "
    "end-to-end paths, 0 warmups for fresh processes and exactly 3 (the frozen sample policy) for reused ones, work "
    "1, concurrency 1..1024, the fixed median/percentile method names, document cells covering whole passes, and "
    "every workload a cell of the frozen matrix (its id, or control_<id>, or an explore_* cell) with that cell's "
    "phase, sample unit, concurrency (the number in a *_concurrency_<n> id, else 1) and kind of bank, measured by a "
    "harness of its phase.")
SAMPLE_SUPPORT = register(
    "performance.sample_support", "A decision cell lacks the required samples, warmups, work or RSS.",
    "Decision cells need 20 (setup), 100 (helper/end-to-end) or 1,000 (direct) samples, no baseline, work 1, "
    "full RSS, and >= 3 warmups when reused; promotion gates only on evaluated-bank decision direct scans.")
PROTOCOL_COUNT = register(
    "performance.protocol_count", "A count of the frozen decision protocol is not exactly the frozen one.",
    "Minimums are not enough: in a decision-profile run every cell of the frozen matrix has exactly its frozen "
    "pooled sample count (20 setup; 100 for the direct cache-value proxy, helper hit, helper miss, end to end, their "
    "controls and the exploratory cells; 1,000 otherwise), which a stability comparison splits into exactly ten "
    "blocks of the frozen size; every sample is one work unit; and the value model's whole-input request and the "
    "document-latency population are the frozen input's exactly 100 documents. (A decision cell below its minimum "
    "is performance.sample_support.)")
BLOCK_ASSIGNMENT = register(
    "performance.block_assignment", "A same-path comparison's block assignment is not the frozen hash-derived one.",
    "The ten blocks' candidate-first/control-first labels are derived from SHA-256 of a fixed domain and index.")
COMPARISON_INVALID = register(
    "performance.comparison_invalid", "A comparison pairs workloads that cannot be compared, or breaks its policy.",
    "Same-path pairs need an exact twin on an identical harness, bank, input, unit, work, concurrency and sample "
    "count split into the frozen blocks; cross-path pairs need allowed phases on the same bank and input; fixed "
    "policy constants (tolerance 5 %, significance 0.05, noise multiplier 2, regression tolerance 5 %).")
COMPARISON_VALUE_MISMATCH = register(
    "performance.comparison_value_mismatch", "A comparison output is not supported by the raw samples.",
    "candidate/baseline values, gap, log ratio, permutation p-value (all 2^10 block swaps), noise floor and "
    "relative degradation are recomputed from the raw samples.")
COMPARISON_RESULT_MISMATCH = register(
    "performance.comparison_result_mismatch", "A comparison's published result differs from the recomputed one.",
    "within_tolerance iff 20*max <= 21*min exactly; else unstable (p <= 0.05) or inconclusive. Cross-path: "
    "regressed / improved beyond noise floor + 5 %, else equivalent_within_noise.")
COMPARISON_FAILED = register(
    "performance.comparison_failed", "A comparison does not support promotion (unstable, inconclusive, regressed "
    "or noisy).",
    "A same-path gap above 5 %, a cross-path regression, or a cross-path noise floor above 0.25 is nonpromotable.")
BREAKEVEN_COMPONENT = register(
    "performance.breakeven_component", "A break-even component is invalid or its value is not its source statistic.",
    "Measured components take the median (or median / work per request) of their workload; declared assumptions "
    "carry the hash of their scenario.")
BREAKEVEN_MISMATCH = register(
    "performance.breakeven_mismatch", "A break-even total, result or unit count is not supported.",
    "Totals are sums of components per side and application; the result is the smallest n >= minimum with "
    "C + nD <= nM (K cancels), candidate_already_better at the minimum, or no break-even.")
VALUE_MODEL_POLICY = register(
    "performance.value_model_policy", "The break-even value model does not meet the promotion contract.",
    "The frozen model compile_once_scan_many_breakeven (parameter whole_input_scan_requests in requests, values in "
    "seconds) with exactly the nine roles, shared pairs identical, measured roles bound to the right decision "
    "cells, D the throughput headline, M the helper-cache-miss path, and a finite or already-better result.")
DECISION_MATRIX = register(
    "performance.decision_matrix", "The frozen decision matrix is incomplete.",
    "19 decision cells, every lifecycle phase on the evaluated bank, one document and one whole-input headline, "
    "and exactly one within-tolerance same-path comparison with the required metric per decision cell.")
SWEEP_UNCONTROLLED = register(
    "performance.sweep_uncontrolled", "A scale, density, size or concurrency sweep is missing or not controlled.",
    "1k/10k/25k/100k banks on one input shape and generator family, each tracking the evaluated bank's composition "
    "proportions within 0.10; negative/sparse/normal/dense and small/medium/large/huge on a fixed bank; serial and "
    "concurrent cells on identical bank and input.")
COMMAND_PROFILE = register(
    "performance.command_profile_mismatch",
    "A decision-grade harness command ran another profile than the report states.",
    "The command a decision-grade harness names records its own command line. When that line selects a profile "
    "(--profile X or --profile=X), X must be the profile performance-report.json states: a report that says "
    "'decision' produced by a run recorded as '--profile smoke' contradicts itself.")
HARNESS_COMMAND_FAILED = register(
    "performance.harness_command_failed", "A decision-grade cell's harness command does not record success.",
    "Charter: every decision-grade harness command must succeed. The command a harness names (evidence commands, "
    "by id) of every harness measuring a decision-grade cell must record exit status 0 and, when it has a timeout, "
    "an elapsed time within it. Decision-grade requirement: false in a bundle that claims decision grade, a "
    "decision outcome in one that honestly reports its grade as not passed (docs/decision-grade.md).")
CPU_CAPACITY = register(
    "performance.cpu_capacity", "A decision cell's concurrency exceeds the recorded CPU count.",
    "Concurrency can never exceed environment.cpu_count.")
MEMORY_CAPACITY = register(
    "performance.memory_capacity", "A measured peak RSS exceeds the recorded machine memory.",
    "No RSS sample can exceed environment.memory_bytes; such a measurement is impossible or mis-recorded.")
ABSOLUTE_POLICY = register(
    "performance.absolute_policy", "A decision direct scan breaks an absolute practical bound.",
    "Document p99 <= 50 ms; whole-input median >= 100 documents/s and >= 1 MiB/s, p99 within the same per-input "
    "floors; peak RSS <= 8 GiB. Compared exactly.")
RSS_PLATFORM = register(
    "performance.rss_unsupported_platform",
    "RSS samples are recorded on a platform where the performance worker reports no RSS.",
    "The worker's RSS sample is ru_maxrss of its own process after each timing sample, in KiB on Linux and bytes on "
    "macOS (environment os Linux or Darwin); on any other platform it reports null, so the workload has no RSS "
    "samples and a null peak (spec 20 section 4.5, spec 50 section 8.3). An environment naming another operating "
    "system together with RSS samples states two things that cannot both hold. A run there publishes its workloads "
    "without RSS (a decision cell then lacks RSS support, performance.sample_support, not this code). Fix: record "
    "the platform the run used, or publish the workloads without RSS.")
COMMAND_ELAPSED_BELOW_SAMPLES = register(
    "performance.command_elapsed_below_samples",
    "A command records less elapsed time than the timing samples it measured.",
    "Every workload names a harness and every harness names the evidence command that ran it, so a command's "
    "elapsed_seconds is at least the sum of the timing samples of every workload its harnesses measured (warmups, "
    "setup and process starts only add to it). A non-zero elapsed time below that sum cannot both be true. An "
    "elapsed time of 0 means not recorded (the real bundle's command) and is not compared. A warning, not an error: "
    "the charter does not define the command's clock, only the samples'. The message carries no figure. Fix: record "
    "the command's wall time, or 0 when it was not measured.", severity="warning")
