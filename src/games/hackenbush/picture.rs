//! Hackenbush's picture: the graph on its ground, laid out by rows above the ground.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::graph::{Colour, Graph};
use super::{DEAL, Hackenbush, HackenbushState, LEFT};
use crate::core::game::{Game, Player, Turn};
use crate::io::draw::{
    Area, DrawError, Drawn, FAINT_INK, HEADER, INK, Picture, curve, fit, header, paint, text,
    thick_line,
};

const HACKENBUSH_SIZE: (u32, u32) = (800, 600);
/// The ground line's height from the picture's top.
const GROUND: i32 = 556;

fn edge_colour(c: Colour) -> RGBColor {
    match c {
        Colour::Blue => RGBColor(30, 90, 200),
        Colour::Red => RGBColor(213, 50, 40),
        Colour::Green => RGBColor(40, 150, 60),
    }
}

/// Where a Hackenbush graph's vertices stand: the ground's neighbours in the lowest row, each
/// vertex one row above its nearest way to the ground (breadth first), the vertices of a row
/// spread across it, ordered by the mean place of their neighbours in the row below.
/// Deterministic, and the same for every position of an episode (it is the whole graph's).
struct Layout {
    /// `(x, y)` of each vertex (the ground's own entry is unused).
    at: Vec<(f64, f64)>,
    /// A row's height and the closest two vertices of a row: the scale of the marks.
    unit: f64,
}

impl Layout {
    fn new(graph: &Graph) -> Layout {
        let (width, _) = HACKENBUSH_SIZE;
        let n = graph.vertex_count();
        let mut depth = vec![usize::MAX; n];
        let mut order = Vec::with_capacity(n);
        if n > 0 {
            depth[0] = 0;
            order.push(0u32);
        }
        let mut next = 0;
        while next < order.len() {
            let v = order[next];
            next += 1;
            for &(_, w) in graph.incident(v) {
                if depth[w as usize] == usize::MAX {
                    depth[w as usize] = depth[v as usize] + 1;
                    order.push(w);
                }
            }
        }
        let rows = depth
            .iter()
            .filter(|&&d| d != usize::MAX)
            .max()
            .copied()
            .unwrap_or(0)
            .max(1);
        let top = f64::from(HEADER) + 16.0;
        let dy = ((f64::from(GROUND) - top) / rows as f64).min(90.0);
        let mut at = vec![(0.0, f64::from(GROUND)); n];
        let mut levels: Vec<Vec<u32>> = vec![Vec::new(); rows + 1];
        for &v in order.iter().skip(1) {
            levels[depth[v as usize]].push(v);
        }
        // Ground loops take places in the lowest row too, after its vertices.
        let ground_loops = graph.incident(0).iter().filter(|&&(_, w)| w == 0).count();
        let mut narrowest = f64::from(width);
        for (d, level) in levels.iter_mut().enumerate().skip(1) {
            if d > 1 {
                let mean_below = |v: u32| {
                    let xs: Vec<f64> = graph
                        .incident(v)
                        .iter()
                        .filter(|&&(_, w)| depth[w as usize] + 1 == d)
                        .map(|&(_, w)| at[w as usize].0)
                        .collect();
                    xs.iter().sum::<f64>() / xs.len().max(1) as f64
                };
                let mut keyed: Vec<(f64, u32)> =
                    level.iter().map(|&v| (mean_below(v), v)).collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                *level = keyed.into_iter().map(|(_, v)| v).collect();
            }
            let places = level.len() + if d == 1 { ground_loops } else { 0 };
            let spacing = (f64::from(width) - 40.0) / places.max(1) as f64;
            narrowest = narrowest.min(spacing);
            for (i, &v) in level.iter().enumerate() {
                at[v as usize] = (
                    20.0 + (i as f64 + 0.5) * spacing,
                    f64::from(GROUND) - d as f64 * dy,
                );
            }
        }
        Layout {
            at,
            unit: dy.min(narrowest),
        }
    }

    /// The x of the `k`-th ground loop.
    fn ground_loop_x(&self, graph: &Graph, k: usize) -> f64 {
        let (width, _) = HACKENBUSH_SIZE;
        let first_row = graph
            .incident(0)
            .iter()
            .filter(|&&(_, w)| w != 0)
            .map(|&(_, w)| w)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let loops = graph.incident(0).iter().filter(|&&(_, w)| w == 0).count();
        let spacing = (f64::from(width) - 40.0) / (first_row + loops).max(1) as f64;
        20.0 + ((first_row + k) as f64 + 0.5) * spacing
    }
}

/// The graph standing on the ground, its edges in their colours; before nature deals, the
/// positions it deals from in CGSuite's notation.
pub(super) fn picture(g: &Hackenbush, s: &HackenbushState) -> Result<Picture, DrawError> {
    let (width, height) = HACKENBUSH_SIZE;
    if s.board == DEAL {
        // The positions nature deals (with some held out, only those of the game's split),
        // each under its own index.
        let deal: Vec<(usize, &std::sync::Arc<Graph>)> =
            g.dealt().map(|i| (i, &g.positions()[i])).collect();
        return paint(width, height, |area| {
            header(
                area,
                width,
                &format!("Nature deals one of {} positions", deal.len()),
                None,
            )?;
            ground(area, width)?;
            let shown = 24;
            for (row, (i, graph)) in deal.iter().take(shown).enumerate() {
                let line = format!("position {i}: {}", graph.to_cgsuite());
                area.draw_text(
                    &fit(&line, width - 40, 14.0),
                    &text(14.0, INK, HPos::Left, VPos::Top),
                    (20, HEADER as i32 + 8 + 20 * row as i32),
                )?;
            }
            if deal.len() > shown {
                area.draw_text(
                    &format!("and {} more", deal.len() - shown),
                    &text(14.0, FAINT_INK, HPos::Left, VPos::Top),
                    (20, HEADER as i32 + 8 + 20 * shown as i32),
                )?;
            }
            Ok(())
        });
    }
    let Some(graph) = g.positions().get(s.board as usize) else {
        return Err(DrawError(format!(
            "position {} of a deal of {}",
            s.board,
            g.positions().len()
        )));
    };
    let layout = Layout::new(graph);
    let edges = graph.edges();
    let standing = s.alive.iter().filter(|&e| e < edges.len()).count();
    let (mover, verb) = (s.to_move as Player, g.turn(s));
    let side = |p: Player| {
        if p == LEFT {
            "Left (blue)"
        } else {
            "Right (red)"
        }
    };
    let line = match verb {
        Turn::Terminal => format!(
            "{} cannot move: {} wins; {standing} of {} edges standing",
            side(mover),
            side(1 - mover.min(1)).to_lowercase(),
            edges.len()
        ),
        _ => format!(
            "{} to move; {standing} of {} edges standing",
            side(mover),
            edges.len()
        ),
    };
    let mover_colour = (verb != Turn::Terminal).then(|| {
        if mover == LEFT {
            edge_colour(Colour::Blue)
        } else {
            edge_colour(Colour::Red)
        }
    });
    let thick = (layout.unit / 9.0).clamp(1.0, 6.0).round();
    let dot = (layout.unit / 10.0).clamp(1.0, 6.0) as i32;
    paint(width, height, |area| {
        header(area, width, &line, mover_colour)?;
        ground(area, width)?;
        // Parallel edges bend apart: the k-th of m between two ends bends by (k - (m-1)/2).
        let mut seen: std::collections::HashMap<(u32, u32), (usize, usize)> =
            std::collections::HashMap::new();
        let key = |a: u32, b: u32| (a.min(b), a.max(b));
        for e in s.alive.iter().filter(|&e| e < edges.len()) {
            seen.entry(key(edges[e].a, edges[e].b)).or_default().1 += 1;
        }
        let mut ground_loops = 0;
        let mut vertices = std::collections::BTreeSet::new();
        for e in s.alive.iter().filter(|&e| e < edges.len()) {
            let edge = edges[e];
            let colour = edge_colour(edge.colour);
            let style = colour.stroke_width(thick as u32);
            let (a, b) = (edge.a.min(edge.b), edge.a.max(edge.b));
            if a == b {
                // A loop: a circle standing on its vertex (on the ground for a ground loop).
                let (x, y) = if a == 0 {
                    ground_loops += 1;
                    (
                        layout.ground_loop_x(graph, ground_loops - 1),
                        f64::from(GROUND),
                    )
                } else {
                    layout.at[a as usize]
                };
                let k = seen.get(&(a, a)).map_or(0, |c| c.0);
                let r = (layout.unit * 0.3).max(3.0) * (1.0 + 0.35 * k as f64);
                seen.entry((a, a)).or_default().0 += 1;
                area.draw(&Circle::new((x as i32, (y - r) as i32), r as i32, style))?;
                vertices.insert(a);
                continue;
            }
            let to = layout.at[b as usize];
            // An edge to the ground stands on the ground under its other end.
            let from = if a == 0 {
                (to.0, f64::from(GROUND))
            } else {
                layout.at[a as usize]
            };
            let count = seen.entry((a, b)).or_default();
            let bend = (count.0 as f64 - (count.1 as f64 - 1.0) / 2.0) * layout.unit * 0.35;
            count.0 += 1;
            thick_line(area, &curve(from, to, bend), thick, colour)?;
            vertices.insert(a);
            vertices.insert(b);
        }
        for v in vertices.into_iter().filter(|&v| v != 0) {
            let (x, y) = layout.at[v as usize];
            area.draw(&Circle::new((x as i32, y as i32), dot, INK.filled()))?;
        }
        Ok(())
    })
}

/// The ground: a band under the ground line.
fn ground(area: &Area, width: u32) -> Drawn {
    area.draw(&Rectangle::new(
        [(0, GROUND), (width as i32, GROUND + 44)],
        RGBColor(205, 190, 160).filled(),
    ))?;
    area.draw(&PathElement::new(
        vec![(0, GROUND), (width as i32, GROUND)],
        RGBColor(110, 85, 50).stroke_width(3),
    ))?;
    Ok(())
}
