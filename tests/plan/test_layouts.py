"""Layouts that say what a careful reader reads (issue 38): a tree or a table of what
waits for what, a declared TDD method, a tree drawn from above the project, step lists
without TDD roles, a task's own files label, outcomes with their command, and marks of
done or optional. Each plan is our own, modelled on the real one named (the real plans
are read in test_real_plans.py)."""

from __future__ import annotations

from pathlib import Path

from executor.plan import lint, load_plan
from tests.plan.helpers import write


def _warnings(path: Path) -> list[str]:
    return [d.message for d in lint(load_plan(path)) if d.severity == "warning"]


def test_a_spec_kit_tasks_own_labels_say_its_files_its_checks_and_that_it_is_done(
    tmp_path: Path,
) -> None:
    """Modelled on q0821/cross-exchange-arbitrage-bot and mkurecka/test-railway-basic-app."""
    path = write(
        tmp_path,
        "tasks.md",
        """
        ## Phase 1: 核心表格渲染

        - [ ] **T-101**: 建立 formatters 目錄結構
          - **描述**: 在 `src/lib/` 下建立 `formatters/` 目錄
          - **建立檔案**: `src/lib/formatters/` (目錄)
        - [ ] **T-102**: 撰寫 ColorStyler 單元測試
          - [X] 所有測試通過 (`pnpm test ColorStyler`) - 24/24 tests passed
          - **建立檔案**: `tests/unit/ColorStyler.test.ts`
        - [ ] **T-103**: 執行整合驗證
          - [X] 檢查 `logs/monitor.log` 檔案已建立
          - **修改檔案**: 無
        - [ ] **T-104**: 執行 TypeScript 類型檢查和 lint ✅
          - `pnpm tsc --noEmit` ✅ 通過
          - `pnpm lint` ⚠️ 配置問題
        """,
    )
    tasks = load_plan(path).sessions()[0].tasks
    assert [t.files for t in tasks] == [
        ["src/lib/formatters/"],  # the label, not the description's `src/lib/`
        ["tests/unit/ColorStyler.test.ts"],
        [],  # `無`: the log it checks is no file it changes
        [],
    ]
    assert [t.command for t in tasks] == [
        None,
        "pnpm test ColorStyler",
        None,
        "pnpm tsc --noEmit && pnpm lint",
    ]
    assert [t.done for t in tasks] == [False, False, False, True]


def test_a_tree_of_sessions_and_a_declared_tdd_method(tmp_path: Path) -> None:
    """Modelled on hmesfin/personal-aid's PROJECT_PLAN.md."""
    path = write(
        tmp_path,
        "PROJECT_PLAN.md",
        """
        # Project Plan: Assistant

        ### Phase 1: Foundation (Sessions 1-4)

        #### Session 1: Scaffolding (3h)
        - Initialize the project
        - **Tests:** Sidecar lifecycle (start, health check, shutdown)

        #### Session 2: IPC Layer (3h)
        - FastAPI server with health endpoint
        - **Tests:** HTTP round-trip

        #### Session 3: LLM Provider (3h)
        - `LLMProvider` interface

        #### Session 4: Events (3h)
        - Event bus

        ## Session Dependencies

        ```
        Session 1 (Scaffolding)
          └→ Session 2 (IPC)
               ├→ Session 3 (LLM Provider)
               └→ Session 4 (Events)

        Session 4 (Events) depends on all above
        ```

        ## Testing Strategy

        - **TDD:** Tests written before implementation in every session
        """,
    )
    plan = load_plan(path)
    assert [(s.number, sorted(s.dependencies)) for s in plan.sessions()] == [
        (1, []),
        (2, [1]),
        (3, [2]),
        (4, [1, 2, 3]),
    ]
    assert [s.tdd for s in plan.sessions()] == [True, True, False, False]  # a Tests label


def test_a_table_of_phases_says_what_each_phase_waits_for(tmp_path: Path) -> None:
    """Modelled on janpow77/flownavigator: German, `### N.M` units, a step list and a
    Script label naming files."""
    path = write(
        tmp_path,
        "UMSETZUNGSPLAN.md",
        """
        # Umsetzungsplan

        | Phase | Beschreibung | Abhängigkeiten |
        |-------|--------------|----------------|
        | **Phase 1** | Basis | - |
        | **Phase 2** | Services | Phase 1 |
        | **Phase 3** | Adapter | Phase 1 |
        | **Phase 4** | Tests | Alle |

        ## Phase 1: Basis

        ### 1.1 Paket anlegen

        **Schritte:**

        1. In Root `pnpm-workspace.yaml` sicherstellen
        2. Router in `apps/api/__init__.py` registrieren

        ### 1.2 Migration

        **Script:** `scripts/migrate_i18n.py`

        ## Phase 2: Services

        ### 2.1 Session-Service

        **Datei:** `apps/services/session.py`

        ## Phase 3: Adapter

        ### 3.1 GLM-Adapter

        **Datei:** `apps/llm/glm.py`

        ## Phase 4: Tests

        ### 4.1 Backend-Tests

        **Erfolgskriterium:** `pytest` grün.
        """,
    )
    plan = load_plan(path)
    assert [(s.label, s.dependencies) for s in plan.sessions()] == [
        ("1.1", []),
        ("1.2", [1]),
        ("2.1", [2]),
        ("3.1", [2]),  # Phase 3 waits for Phase 1, not for the unit before it
        ("4.1", [2, 3, 4]),
    ]
    first, second = plan.sessions()[:2]
    assert [f.path for f in first.files] == ["pnpm-workspace.yaml", "apps/api/__init__.py"]
    assert [f.path for f in second.files] == ["scripts/migrate_i18n.py"]


def test_a_session_file_drawn_from_above_the_project_with_steps_of_no_tdd_role(
    tmp_path: Path,
) -> None:
    """Modelled on hmesfin/personal-aid's PLAN.md: a tree under the project's own folder,
    `### Step N:` headings that are the work, a check a step runs, one a person makes."""
    path = write(
        tmp_path,
        "PLAN.md",
        """
        # Session 1: Project Scaffolding - Implementation Plan

        ## Target Structure

        ```
        personal-aid/
        ├── backend/
        │   ├── run.py
        │   └── tests/
        │       └── test_health.py
        ├── src-tauri/
        │   └── Cargo.toml
        └── ...
        ```

        ## Steps

        ### Step 1: Scaffold the backend

        - Create `backend/run.py` as the sidecar entry point

        ### Step 2: Sidecar lifecycle tests

        - Rust integration (verified manually + via `tauri dev`)

        ### Step 3: Prototype Packaging (Fail-Fast)

        - Add `tauri-plugin-shell` to `src-tauri/Cargo.toml`
        - Run `npx tauri build` to verify the full bundle works
        """,
    )
    session = load_plan(path).sessions()[0]
    assert [f.path for f in session.files] == [
        "backend/run.py",
        "backend/tests/test_health.py",
        "src-tauri/Cargo.toml",
    ]
    assert not session.tdd and session.test_command("green") == "npx tauri build"
    assert session.checkpoints == ["Rust integration (verified manually + via `tauri dev`)"]
    assert not any("names no TDD role" in m for m in _warnings(path))


def test_a_checklist_sub_phase_says_it_is_optional_or_written_test_first(
    tmp_path: Path,
) -> None:
    """Modelled on hmesfin/fullstack-starter-djvurn's PHASE_4 Implementation Checklist."""
    path = write(
        tmp_path,
        "PHASE_4_UI.md",
        """
        # Phase 4: UI - Implementation Plan

        ## Implementation Checklist

        ### Phase 4.1: Auth Forms

        - [x] **4.1.1** Refactor `LoginForm.vue`
          - [x] Write tests first (TDD - existing functionality)
          - [x] Verify tests pass (GREEN phase)

        ### Phase 4.2: Enhanced UX Features (Optional)

        - [x] **4.2.1** Add toast notifications

        ### Phase 4.3: Quality

        - [x] **4.3.1** Run type checking
          - [x] Run `npm run type-check` locally
        """,
    )
    forms, extras, quality = load_plan(path).sessions()
    assert (forms.tdd, extras.tdd, quality.tdd) == (True, False, False)
    assert (forms.optional, extras.optional, quality.optional) == (False, True, False)
    assert quality.test_command("green") == "npm run type-check"


def test_a_files_item_without_a_kind_and_a_red_step_that_names_its_own_run(
    tmp_path: Path,
) -> None:
    """Modelled on voxmedia/open-agent-toolkit (`p01-t01` ids) and koheikameyama/
    stock-analyzer (`Modify: `path`` inside a step)."""
    path = write(
        tmp_path,
        "plan.md",
        """
        # Docs Reorg Implementation Plan

        ## Phase 1: Navigation

        ### Task p01-t01: Move the guides

        **Files:**

        - Move or rewrite existing `guide/workflow/*`
        - Split `guide/getting-started`
        - Modify as needed: `tools/git-hooks/README.md`

        **Step 1: Write docs acceptance check (RED)**

        Run: `pnpm build:docs`
        Expected: the build names the missing pages

        **Step 2: Implement (GREEN)**

        Modify: `docs/index.md` (add the new routes)

        Run: `pnpm build:docs`
        Expected: the site builds
        """,
    )
    session = load_plan(path).sessions()[0]
    assert [f.path for f in session.files] == [
        "guide/workflow/",
        "guide/getting-started",
        "tools/git-hooks/README.md",
        "docs/index.md",
    ]
    assert session.tdd and session.test_command("red") == "pnpm build:docs"
