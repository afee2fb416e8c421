//! `bozkir profiles`: the profiles, their groups and parameters.

use anyhow::Result;
use bozkir_terrain::profiles::table::{profile, PARAM_NAMES};
use bozkir_terrain::profiles::GROUPS;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    if a.json {
        let mut out = serde_json::Map::new();
        for (group, names) in GROUPS {
            for name in names {
                let p = profile(name).map_err(anyhow::Error::msg)?;
                let mut o = serde_json::Map::new();
                o.insert("group".into(), group.into());
                o.insert("summary".into(), p.summary.into());
                for k in PARAM_NAMES {
                    o.insert(k.into(), p.params.get(k).unwrap().into());
                }
                out.insert(name.to_string(), o.into());
            }
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    print!("{:<10} {:<10}", "group", "profile");
    for k in PARAM_NAMES {
        print!(" {:>9}", k);
    }
    println!();
    for (group, names) in GROUPS {
        for name in names {
            let p = profile(name).map_err(anyhow::Error::msg)?;
            print!("{:<10} {:<10}", group, name);
            for k in PARAM_NAMES {
                print!(" {:>9}", p.params.get(k).unwrap());
            }
            println!();
        }
    }
    println!("\nAny parameter can be overridden: bozkir terrain --profile canyon --ridge 0.7 …");
    Ok(())
}
