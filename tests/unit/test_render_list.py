"""--list renderings: the Apache text layout and the JSON contract."""

import io
import json

from kafka_groups.core.groups import GroupListing, GroupListResult
from kafka_groups.render import OutputFormat, emit


def _render(result, fmt):
    out = io.StringIO()
    emit(result, fmt, out)
    return out.getvalue()


GROUPS = (
    GroupListing("my-group", "Classic", "Stable", "consumer"),
    GroupListing("a-much-longer-group-name", "Consumer", "Empty", "consumer"),
)


def test_bare_list_is_one_id_per_line_in_listing_order():
    result = GroupListResult(GROUPS, show_type=False, show_state=False)
    assert _render(result, OutputFormat.TEXT) == "my-group\na-much-longer-group-name\n"


def test_columns_are_padded_like_the_apache_tool():
    result = GroupListResult(GROUPS[:1], show_type=True, show_state=True)
    # Group column: max(15, longest id) + 10; TYPE then STATE, each " %-20s".
    assert _render(result, OutputFormat.TEXT) == (
        "GROUP                     TYPE                 STATE               \n"
        "my-group                  Classic              Stable              \n"
    )


def test_group_column_grows_with_the_longest_id():
    text = _render(GroupListResult(GROUPS, show_type=False, show_state=True), OutputFormat.TEXT)
    header, _first, second = text.splitlines()
    width = len("a-much-longer-group-name") + 10
    assert header == "GROUP".ljust(width) + " " + "STATE".ljust(20)
    assert second == "a-much-longer-group-name".ljust(width) + " " + "Empty".ljust(20)


def test_header_is_printed_without_groups():
    text = _render(GroupListResult((), show_type=True, show_state=False), OutputFormat.TEXT)
    assert text == "GROUP".ljust(25) + " " + "TYPE".ljust(20) + "\n"


def test_streams_layout():
    result = GroupListResult(GROUPS[:1], show_type=False, show_state=True, streams=True)
    assert _render(result, OutputFormat.TEXT) == "GROUP           STATE\nmy-group        Stable\n"


def test_json_contract():
    doc = json.loads(_render(GroupListResult(GROUPS, False, False), OutputFormat.JSON))
    assert doc["schema"] == "kafka-group-tools/group-list/v1"
    assert [sorted(g) for g in doc["groups"]] == [["group", "state", "type"]] * 2
    assert all(isinstance(v, str) for g in doc["groups"] for v in g.values())
    assert doc["groups"][1] == {"group": "a-much-longer-group-name", "type": "Consumer", "state": "Empty"}


def test_csv_has_a_header():
    text = _render(GroupListResult(GROUPS, False, False), OutputFormat.CSV)
    assert text.splitlines() == [
        "group,type,state",
        "my-group,Classic,Stable",
        "a-much-longer-group-name,Consumer,Empty",
    ]
