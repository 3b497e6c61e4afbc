//! The worked example as data (`spd::worked_example`): every number the paper prints, ours next
//! to it, and the rows where we differ.

use spd::worked_example::{
    figures_2_3, spdvr_p2p_final, spdvr_p2p_trace, table_iv, table_v, tables_ii_iii,
};
use spd::{ChainKey, ReassignRule};

#[test]
fn figures_2_and_3() {
    let rows = figures_2_3();
    let get = |fig: &str, q: &str| {
        rows.iter()
            .find(|r| r.figure == fig && r.quantity == q)
            .unwrap_or_else(|| panic!("{fig} {q}"))
    };
    for (fig, q, v) in [
        ("Fig. 2", "D_cs (root B)", 102.0),
        ("Fig. 2", "D_p2p", 101.0),
        ("Fig. 2", "round trip of a, direct to B", 110.0),
        ("Fig. 2", "round trip of a, via A", 100.0),
        ("Fig. 3", "D_cs (root D)", 132.0),
        ("Fig. 3", "V_cs (root D)", 82.0),
        ("Fig. 3", "smallest round trip (root D)", 50.0),
        ("Fig. 3", "D_p2p", 114.0),
        ("Fig. 3", "smallest pair delay", 64.0),
        ("Fig. 3", "V_p2p", 50.0),
    ] {
        let r = get(fig, q);
        assert_eq!((r.ours, r.printed), (v, v), "{fig} {q}");
    }
    // every printed number matches; the `note`s flag the text's wrong names
    assert!(rows.iter().all(|r| r.ours == r.printed));
    assert!(
        get("Fig. 3", "smallest round trip (root D)")
            .note
            .contains("b→D")
    );
    assert!(
        get("Fig. 3", "smallest pair delay")
            .note
            .contains("a–c is 87")
    );
    let json = serde_json::to_string(&rows).unwrap();
    assert!(json.contains("\"printed\":102.0"));
}

#[test]
fn tables_ii_and_iii_both_modes() {
    let (tuples, chains, chosen) = tables_ii_iii();
    let paper: Vec<_> = tuples
        .iter()
        .filter(|t| t.mode == ChainKey::PaperTable)
        .collect();
    assert_eq!(paper.len(), 18);
    assert!(
        paper
            .iter()
            .all(|t| t.printed_key == Some(t.key) && t.note == "as printed")
    );
    let keys: Vec<f64> = paper.iter().map(|t| t.key).collect();
    assert_eq!(
        keys,
        [
            25.0, 32.0, 32.0, 37.0, 37.0, 39.0, 39.0, 41.0, 43.0, 51.0, 52.0, 52.0, 55.0, 55.0,
            56.0, 60.0, 64.0, 68.0
        ]
    );
    assert_eq!((paper[0].client, paper[0].server), ("b", "D"));
    assert_eq!((paper[17].client, paper[17].server), ("e", "A"));
    let text: Vec<_> = tuples
        .iter()
        .filter(|t| t.mode == ChainKey::TextFaithful)
        .collect();
    assert_eq!(text.len(), 12);
    assert!(text.iter().all(|t| t.printed_key.is_none()));

    // Table III: the ten printed chains, D(h, t) as printed, 10..14 chosen
    let pc: Vec<_> = chains
        .iter()
        .filter(|c| c.mode == ChainKey::PaperTable)
        .collect();
    let got: Vec<(usize, usize, f64, f64, f64)> = pc
        .iter()
        .map(|c| (c.head, c.tail, c.d_head, c.d_tail, c.variation))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 7, 25.0, 39.0, 14.0),
            (2, 7, 32.0, 39.0, 7.0),
            (3, 7, 32.0, 39.0, 7.0),
            (4, 9, 37.0, 43.0, 6.0),
            (5, 10, 37.0, 51.0, 14.0),
            (6, 13, 39.0, 55.0, 16.0),
            (7, 13, 39.0, 55.0, 16.0),
            (8, 13, 41.0, 55.0, 14.0),
            (9, 14, 43.0, 55.0, 12.0),
            (10, 14, 51.0, 55.0, 4.0),
        ]
    );
    assert!(pc.iter().all(|c| c.printed_variation == Some(c.variation)));
    let picked: Vec<_> = pc.iter().filter(|c| c.chosen).collect();
    assert_eq!(picked.len(), 1);
    assert_eq!((picked[0].head, picked[0].tail), (10, 14));
    let tc: Vec<(usize, usize, f64)> = chains
        .iter()
        .filter(|c| c.mode == ChainKey::TextFaithful)
        .map(|c| (c.head, c.tail, c.variation))
        .collect();
    assert_eq!(tc, vec![(1, 7, 24.0), (2, 7, 10.0)]);

    // the chosen chains: the printed one violates μ = 139 (146), ours meets it with V_cs 20
    assert_eq!(chosen.len(), 2);
    let p = &chosen[0];
    assert_eq!(p.mode, ChainKey::PaperTable);
    assert_eq!(p.assignment, "a→B, b→A, c→A, d→A, e→D");
    assert_eq!((p.delay, p.feasible), (146.0, false));
    assert!(p.note.contains("146"));
    let t = &chosen[1];
    assert_eq!(t.assignment, "a→C, b→B, c→C, d→D, e→B");
    assert_eq!(
        (t.delay, t.variation, t.feasible, t.servers),
        (98.0, 20.0, true, 3)
    );
}

#[test]
fn tables_iv_and_v() {
    let iv = table_iv();
    assert_eq!(iv.len(), 10);
    assert!(
        iv.iter()
            .all(|r| r.delay == r.printed_delay && r.note == "as printed")
    );
    assert_eq!((iv[0].a, iv[0].b, iv[0].delay), ("b", "d", 64.0));
    assert_eq!((iv[9].a, iv[9].b, iv[9].delay), ("a", "e", 114.0));

    let v = table_v();
    let got: Vec<(&str, [f64; 4], f64)> = v
        .iter()
        .map(|r| (r.server, [r.ab, r.bc, r.bd, r.be], r.variation))
        .collect();
    assert_eq!(
        got,
        vec![
            ("A", [93.0, 98.0, 112.0, 125.0], 38.0),
            ("B", [82.0, 69.0, 83.0, 96.0], 45.0),
            ("C", [101.0, 88.0, 92.0, 99.0], 27.0),
        ]
    );
    assert!(
        v.iter().all(|r| [r.ab, r.bc, r.bd, r.be]
            == [r.printed_ab, r.printed_bc, r.printed_bd, r.printed_be])
    );
    // every row type is flat (CSV-ready): no JSON arrays or objects inside a row
    let (t, c, ch) = tables_ii_iii();
    for json in [
        serde_json::to_string(&v).unwrap(),
        serde_json::to_string(&t).unwrap(),
        serde_json::to_string(&c).unwrap(),
        serde_json::to_string(&ch).unwrap(),
        serde_json::to_string(&iv).unwrap(),
        serde_json::to_string(&figures_2_3()).unwrap(),
        serde_json::to_string(&spdvr_p2p_trace(ReassignRule::Sequential)).unwrap(),
        serde_json::to_string(&spdvr_p2p_final()).unwrap(),
    ] {
        let rows: Vec<serde_json::Map<String, serde_json::Value>> =
            serde_json::from_str(&json).unwrap();
        assert!(!rows.is_empty());
        for row in rows {
            assert!(
                row.values().all(|v| !v.is_array() && !v.is_object()),
                "{row:?}"
            );
        }
    }
}

#[test]
fn spdvr_p2p_trace_and_final_assignment() {
    let seq: Vec<(u8, &str, &str, f64)> = spdvr_p2p_trace(ReassignRule::Sequential)
        .iter()
        .map(|r| (r.phase, r.client, r.to, r.variation))
        .collect();
    assert_eq!(
        seq,
        vec![
            (1, "b", "A", 38.0),
            (1, "b", "C", 27.0),
            (1, "a", "C", 23.0),
            (2, "e", "B", 18.0)
        ]
    );
    let best = spdvr_p2p_trace(ReassignRule::BestImprovement);
    assert_eq!(best.len(), 3);
    assert_eq!(
        (best[0].client, best[0].to, best[0].variation),
        ("b", "C", 27.0)
    );
    assert!(best[0].note.starts_with("as printed"));

    let fin = spdvr_p2p_final();
    assert_eq!(fin[0].assignment, "a→C, b→C, c→B, d→D, e→B");
    assert_eq!((fin[0].variation, fin[0].printed_variation), (18.0, 18.0));
    assert_eq!(fin[1].assignment, "a→B, b→C, c→B, d→D, e→C");
    assert_eq!((fin[1].variation, fin[1].delay), (31.0, 119.0));
    assert!(fin[1].note.contains("swapped"));
    assert_eq!(fin[2].variation, 17.0);
}
