from widgets.footer_format import FooterData, format_footer, format_size, format_tokens, to_fixed


def test_format_tokens_matches_pi():
    cases = {
        0: "0",
        999: "999",
        1000: "1.0k",
        1234: "1.2k",
        1250: "1.3k",  # JS toFixed rounds an exact tie up
        9999: "10.0k",
        10_000: "10k",
        12_345: "12k",
        999_500: "1000k",
        1_000_000: "1.0M",
        1_250_000: "1.3M",
        12_500_000: "13M",
    }
    assert {n: format_tokens(n) for n in cases} == cases


def test_to_fixed_is_javascript_rounding():
    assert to_fixed(2.5, 0) == "3"
    assert to_fixed(0.1234, 3) == "0.123"
    assert to_fixed(1.005, 2) == "1.00"  # 1.005 is 1.00499... in binary
    assert format_size(50 * 1024) == "50.0KB"
    assert format_size(100) == "100B"


def _data(**kw):
    base = dict(
        cwd="/home/u/proj",
        home="/home/u",
        git_branch="main",
        session_name="refactor",
        input_tokens=12_345,
        output_tokens=678,
        cache_read=1_000_000,
        cost=0.1234,
        context_percent=42.04,
        context_window=200_000,
        model_id="claude-sonnet-4",
        reasoning=True,
        thinking_level="high",
    )
    base.update(kw)
    return FooterData(**base)


def test_footer_lines_exact():
    lines = format_footer(_data(), 80)
    assert lines[0].plain == "~/proj (main) • refactor"
    left = "↑12k ↓678 R1.0M $0.123 42.0%/200k (auto)"
    right = "claude-sonnet-4 • high"
    assert lines[1].plain == left + " " * (80 - len(left) - len(right)) + right
    assert len(lines) == 2


def test_footer_omits_zero_stats_and_handles_unknown_context():
    lines = format_footer(
        _data(
            input_tokens=0,
            output_tokens=0,
            cache_read=0,
            cost=0.0,
            context_percent=None,
            auto_compact=False,
            reasoning=True,
            thinking_level="off",
            git_branch=None,
            session_name=None,
        ),
        60,
    )
    assert lines[0].plain == "~/proj"
    assert lines[1].plain.startswith("?/200k  ")
    assert lines[1].plain.endswith("claude-sonnet-4 • thinking off")


def test_footer_context_colour_thresholds():
    def styles(pct):
        line = format_footer(_data(context_percent=pct), 100)[1]
        return {str(s.style) for s in line.spans}

    assert "$pi-warning" not in styles(70.0)
    assert "$pi-warning" in styles(70.1)
    assert "$pi-error" in styles(90.5)


def test_footer_subscription_provider_and_statuses():
    lines = format_footer(
        _data(
            using_subscription=True,
            cost=0.0,
            provider="anthropic",
            provider_count=2,
            extension_statuses={"b": "two\nlines", "a": "first"},
        ),
        100,
    )
    assert "$0.000 (sub)" in lines[1].plain
    assert lines[1].plain.endswith("(anthropic) claude-sonnet-4 • high")
    assert lines[2].plain == "first two lines"


def test_footer_narrow_width_truncates_pwd_and_model():
    lines = format_footer(_data(), 30)
    assert lines[0].plain == "~/proj (main) • refactor"
    narrow = format_footer(_data(cwd="/home/u/" + "x" * 40), 20)
    assert narrow[0].plain.endswith("...") and len(narrow[0].plain) == 20
    assert len(lines[1].plain) <= 41


def test_pending_footer_has_no_figures_only_the_model_asked_for():
    """The first frame, before the session exists: directory and branch, the model as asked, no numbers."""
    data = FooterData(cwd="/home/u/proj", home="/home/u", git_branch="main", model_id="sonnet", pending=True)
    pwd, stats = (line.plain for line in format_footer(data, 40))
    assert pwd == "~/proj (main)"
    assert stats == " " * 34 + "sonnet"
    unknown = FooterData(cwd="/p", pending=True)
    assert format_footer(unknown, 20)[1].plain == " " * 12 + "loading…"
    assert format_footer(FooterData(cwd="/p", model_id="a-very-long-model-id", pending=True), 8)[1].plain == (
        "a-very-l"
    )
