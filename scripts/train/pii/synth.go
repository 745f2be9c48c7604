package main

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// The generator writes training texts from the templates below, filling their slots with names
// drawn from the gazetteer sources and with the places, organisations, products, dates and
// numbers that surround names in real text. Person slots are the gold names; everything else is
// negative evidence. The templates were written for this project (chat messages, e-mails,
// forms, signatures, and encyclopedic prose for English); none comes from an evaluation set.
//
// Slots: {name} a name in a random form; {full} given name and surname; {first} a given name;
// {last} a surname; {ini} initials and a surname; {lc} a name in lower case (chat); {caps} a name in capitals (forms);
// {title} an honorific of the language (not part of the name); {city} {country} {org}
// {product} {month} {weekday} {num} {year} {day} {time} {email} {street} {phone} are not names.

var templates = map[string]string{
	"en": `
Deaths: {ini}, aged {day}.
Grandmaster {last} beat {last} in the third round.
The defendant, {full}, pleaded not guilty.
Mayor {last} opened the session.
{first} called yesterday and asked about the invoice.
{first} said the package arrived this morning.
{first} wants to know when the meeting starts.
{first} told me you were ill.
{first} is a very good teacher.
{first} has worked here since {year}.
{first} will pick you up at {time}.
{first} was late again today.
{first} is from {city}.
Why is {first} so upset?
Where is {first}? I can't find her.
I gave {first} the keys.
Please tell {first} that I called.
I heard {first} got the job!
We had dinner with {first} on {weekday}.
Did {first} send you the file?
My son {first} starts school in {month}.
My daughter {first} loves it.
Our kid {first} is sick today.
"We will appeal," said {last}.
"It's fine," {first} said.
{first} asked {first} for help with the move.
{first} gave {first} a lift to the station.
{last} said the plan would work.
{last} was wrong about that.
Unlike {last}, she never wrote about the war.
Hi, my name is {full} and I need help with my account.
hey it's {lc}, can you call me back?
Hello, this is {first} from {org}. I'm calling about your order {num}.
Dear {title} {last}, thank you for your message.
Dear {first},
Thanks {first}, that works for me.
Kind regards,\n{full}
Best,\n{first}
Cheers, {first}
Sincerely,\n{full}\n{org}
Please contact {full} at {email} for details.
I spoke with {title} {last} yesterday and she confirmed the appointment for {weekday}.
Can you forward this to {first}? He is out until {month} {day}.
{full} will join the meeting on {weekday} at {time}.
Name: {full}\nEmail: {email}\nPhone: {phone}
Full name: {caps}
Customer: {full}, {city}
Account holder: {full}
Patient: {full}, born {day} {month} {year}
I'm {first}, nice to meet you!
i'm {lc} lol
my friend {lc} says hi
ask {lc} about it tomorrow
I want to add {full} as a beneficiary to my account.
The account is under my wife's name, {full}.
Please change the name on the card to {full}.
Our new manager is {full}, who joined from {org} in {year}.
{first} and {first} are coming to the party on {weekday}.
Meeting notes: {full}, {full} and {first} attended; {last} will send the slides.
From: {full} <{email}>\nSubject: invoice {num}
{full} (CEO, {org})
Thanks again,\n{first} {last}\nSenior Engineer | {org}
Call me on {phone} or ask for {first} at reception.
Is {first} available on {weekday}?
I met {full} in {city} last {month}.
{full} was born in {city} in {year}.
{full} (born {day} {month} {year}) is a {nat} {job}.
{full} is a {nat} {job} and former member of {org}.
In {year}, {last} moved to {city}, where he worked for {org}.
The album was produced by {full} and released by {org} in {year}.
The song was written by {full} and {full}.
{last} scored twice as {org} beat {org} 3-1.
He was succeeded by {full}, who served until {year}.
{full} married {full} in {year}; they had two children.
According to {last}, the project was finished in {month} {year}.
{last}'s first novel was published in {year}.
The band consisted of {full}, {full}, {full} and {full}.
The film stars {full} and {full}.
She studied at the University of {city} under {full}.
{full} and his brother {first} founded {org} in {year}.
The award went to {full} for her work on {product}.
After {last} left the band, {full} replaced him on guitar.
{full}, the mayor of {city}, opened the new bridge.
Former president {full} visited {country} in {year}.
{last} told reporters that the team would appeal.
Coach {full} praised {last} after the game.
Guest speaker: {title} {full}, {org}
Reviewed by {full} on {month} {day}, {year}
Signed: {full}
Approved by {caps}
Contact person: {title} {full}
Emergency contact: {full} ({phone})
Sent from my iPhone\n\n{first}
{first} here, running late!
thx {lc}
@{first} can you check this?
Please welcome {full} to the team!
{full} has left the chat.
Hey {first}, did you get my email?
Good morning {first}, hope you're well.
Can {first} and {lc} join us?
Looking forward to it, {first}.
I work with {full} at {org}.
The report was prepared by {full} and reviewed by {full}.
Author: {full}
Written by {first} {last}
Photo: {full}/{org}
The contract between {org} and {full} ends in {month}.
Mr {last} and Mrs {last} arrived on {weekday}.
Ask for {title} {last} at the front desk.
Hi {first}! How was {city}?
{full} from {city} wrote: the delivery was late.
{full}, {city}, {country}
Applicant: {caps}, {city}
{first}: are you coming tonight?\n{first}: yes, see you at eight.
{first}: "Where were you?"\n{first}: "At work."
They have three children: {first}, {first} and {first}.
The guests were {first}, {first}, {first} and {first}.
{first} shouted at {first}: "Stop it!"
She named him {first}.
{lc} lives in {city} with two cats.
{full} will be talking at the conference.
Have you been to a {full} concert before?
The {full} version of the song was released in {year}.
{last} began writing as a teenager and published her first story in {year}.
{title} {last} is a 40 year old man who grew up in {city}.
Maybe it's under {full}?
It's under my husband's name, {full}.
I'd like to add {full} to my account.
Please update the name to {first} {last}.
Producer {full} explained that the song is about {city}.
As {full} points out, most of them are terrible.
This song by {last} is a perfect example.
{full}'s killers were sentenced in {year}.
{phrase} is a {year} film directed by {full}.
The novel {phrase} by {full} won the {phrase} Prize.
{full} played guitar on {phrase}, the band's third album.
{full}, {full} and {full} formed the band {phrase} in {city}.
{title} {full} has been appointed head of {org}.
{last} was put under arrest pending an investigation.
The show was hosted by {full}.
Colonel {full}, {day} {month} {year}
Lieutenant {full} was wounded at {phrase}.
{first} and I went to {city} last summer.
{full} was born in {town} and moved to {town} in {year}.
{full}, who grew up in {town}, joined {org} in {year}.
The mayor of {town}, {full}, opened the station.
{last} is a very careful driver.
{last} is an old friend of mine.
{last} was a great help with the move.
{last} is the best nurse on the ward.
{first} is an excellent cook.
{full} is a retired firefighter from {city}.
{last} and {last} were partners at {org} for years.
{last} was a lawyer before she went into politics.
"Prices will go up again," says {last}.
"We are not worried," says {full}, who runs the shop.
According to {last}, the plan was never approved.
{first} is my neighbour.
{first}'s new number is {phone}.
I borrowed {last}'s car for the weekend.
lol {lc} is so funny
is {lc} coming tonight?
tell {lc} i said hi
just saw {lc} at the gym
{lc} said she'd be late
can u ask {lc} to call me
me and {lc} are going out later
omg {lc} got the job
did {lc} text you back?
Ship to:\n{full}\n{day} {street}\nSuite {day}\n{town}\n{country}
{full}\n{day} {pstreet}\nApt. {day}\n{town}, {country} {num}
Please send the card to {full}, {day} {street}, Apt. {day}, {town}.
`,
	"en-neg": `
{org} said the package arrived this morning.
{org} wants to know when the meeting starts.
{org} told reporters the plan would work.
{org} won a patent suit against {org} in {year}.
{town} is a small village in {country}.
{town} had a population of {num} in {year}.
{town} is a municipality near {city}.
{phrase} is a chain of supermarkets in {country}.
{phrase} called the vote a success.
{phrase} wants to open stores in {country}.
{phrase} was released on {month} {day}.
I gave {org} my card details.
We had dinner in {town} on {weekday}.
Please tell {org} that I called.
Did {org} send you the file?
Unlike {org}, they never sold phones.
"It's fine," {org} said in a statement.
Nobody called yesterday.
Someone said the package arrived this morning.
Everyone wants to know when the meeting starts.
Support told me the order was cancelled.
Marketing wants the slides by {weekday}.
Security called about the badge.
Management said the plan would work.
Accounting has the invoice.
Reception will call you at {time}.
Why is the app so slow?
Where is the charger? I can't find it.
Please tell the driver that I called.
Did the courier send you the tracking number?
"It's fine," she said.
"We will appeal," the lawyers said.
The meeting has been moved to {weekday} {day} {month}.
Please find attached the invoice {num} for {month}.
We shipped your order {num} from our warehouse in {city}.
{org} announced record profits for {year}.
The {product} update is available for download.
Welcome to {city}! The weather is great in {month}.
Our office in {city} is closed on {weekday}.
May I ask a question about my account?
Will you be there on {weekday}?
Rose prices went up in {month}.
Mark the date: {month} {day}.
Bill payment failed for order {num}.
Grace period ends on {month} {day}.
Summer sale at {org} starts on {weekday}.
The University of {city} was founded in {year}.
{city} is the capital of {country}.
The {org} won the cup in {year} after beating {org}.
The river flows through {city} and {city} before reaching the sea.
The {product} costs {num} dollars in {country}.
Reset your password at {org} before {month} {day}.
Customer Service Team\n{org}
Order status: shipped. Tracking number {num}.
Dear Customer, thank you for choosing {org}.
Dear Sir or Madam,
Hi team, the release is scheduled for {weekday}.
Thanks for your help yesterday!
The invoice was sent to {email} on {month} {day}.
You can reach us at {phone} from Monday to Friday.
The train from {city} to {city} leaves at {time}.
I live on {street} in {city}.
Visit us at {street}, {city}.
The {org} office moved to {street}.
New York Times bestseller list, {month} {year}.
Apple released a new {product} in {year}.
Windows and Linux builds are available.
The conference in {city} was great, see you next year!
Please review the attached draft before {weekday}.
All employees must complete the training by {month} {day}.
The package was delivered to the front desk.
We are hiring engineers in {city} and {city}.
This product is not available in {country}.
Error code {num}: please contact support.
Christmas Eve falls on a {weekday} this year.
Black Friday deals at {org}!
The Prime Minister of {country} met the President of {country}.
The Supreme Court ruled on the case in {year}.
Happy New Year from all of us at {org}!
The band {phrase} released the album {phrase} in {year}.
They toured with {phrase} and {phrase} across {country}.
The Battle of {phrase} was fought in {year}.
The regiment marched from {city} to {phrase}.
The {year} {phrase} football team played its home games at {phrase} Stadium.
The single "{phrase}" reached number {day} on the charts.
The album won the {phrase} Award for Best {phrase}.
The hotel on {phrase} Avenue closed in {year}.
I work for {org2}.
{org2} is hiring in {city}.
The {org2} Orchestra was founded in {year}.
The statement was sent to {num} {pstreet}, {city}.
We live at {pstreet} {day}, {city}.
Our office is at {pstreet} {day}, Suite {num}.
See the chapter "{phrase}" for details.
{phrase} Park is the largest park in {city}.
The {phrase} Railroad ran trains between {city} and {city}.
The {phrase} Festival takes place every {month}.
He was a member of the {phrase} Society.
Episode {day}: "{phrase}"
Welcome to {phrase}!
The {phrase} Hotel is near the station.
Chapter {day}. {phrase}
{phrase} and {phrase} are often confused.
Where is the nearest {phrase} store?
What's the name on the account?
Answer: yes.
Hello I moved, please update my address.
Thanks, and have a nice day!
The train ran from {town} to {town} twice a day.
The line was extended to {town} in {year}.
He moved to {town} in {year} and later returned to {town}.
{town} is a small town in {country}.
The {town} extension was abandoned after {year}.
The regiment left {town} on {month} {day}.
The first train left {town} at 5:15 AM.
Flights from {town} to {city} were cancelled.
The {town} and {town} Railroad was reorganized in {year}.
He is German, she is Hungarian, and they met in {city}.
The Jewish and Christian communities of {town} grew.
{product} is a great tool.
{product} was a great help with the move.
{org} is a big company with offices in {city}.
{city} is a beautiful city.
{phrase} was a mistake.
{phrase} is a very good read.
lol this is so funny
is everyone coming tonight?
tell mom i said hi
just saw your sister at the gym
can u ask the landlord to call me
me and the kids are going out later
did the bank text you back?
Delivery address:\n{day} {pstreet}\nSuite {day}\n{town}\n{country}
The office moved to {day} {street}, Suite {day}, {town}.
`,
	"de": `
Gestorben: {ini}, Kaufmann, {day} Jahre.
Verlobt: {ini} mit {ini}.
Herr von {last} nahm das Wort.
Der Angeklagte {last} wurde freigesprochen.
Bürgermeister {last} eröffnete die Sitzung.
Minister {last} trat gestern zurück.
Großmeister {last} gewann gegen {last}.
Der Kaufmann {full} aus {town} ist gestorben.
Mister {last} kam spät nach Hause.
Stand nach der dritten Runde: {last} 3, {last} 2, {last} 1, {last} 0.
Oberst {last} führte das Regiment nach {town}.
Pfarrer {last} hielt die Predigt.
Gegen den Wiener {last} verlor er die Partie.
Die Oper von {last} wurde {year} uraufgeführt.
{first} hat gestern angerufen und nach der Rechnung gefragt.
{first} sagt, das Paket ist angekommen.
{first} ist heute krank.
Warum ist {first} so sauer?
Ich habe {first} die Schlüssel gegeben.
Sag {first} bitte, dass ich angerufen habe.
Unser Sohn {first} kommt im {month} in die Schule.
„Wir gehen in Berufung“, sagte {last}.
{last} hat recht behalten.
Hallo, mein Name ist {full} und ich habe eine Frage zu meiner Bestellung.
Ich bin {first} und arbeite bei {org}.
ich bin {lc} und brauche hilfe
Sehr geehrte {title} {last},
Sehr geehrter {title} {last}, vielen Dank für Ihre Nachricht.
Liebe {first}, lieber {first},
Hallo {first}, wie geht's?
Viele Grüße\n{full}
Mit freundlichen Grüßen\n{full}\n{org}
LG {first}
Beste Grüße aus {city}, {first}
Bitte wenden Sie sich an {title} {full} unter {email}.
{full} ist ab {weekday} wieder im Büro.
Kannst du das an {first} weiterleiten?
Ich habe gestern mit {title} {last} telefoniert.
Name: {full}\nTelefon: {phone}
Vorname: {first}\nNachname: {last}
Kunde: {full}, {city}
Kontoinhaber: {caps}
Ansprechpartner: {title} {full}
Mein Mann {first} und ich kommen am {weekday}.
{full} aus {city} hat angerufen.
Frag mal {lc}, der weiß das.
hey {lc}, kommst du heute?
Unterschrift: {full}
Die Rechnung ist auf {full} ausgestellt.
{full} wurde {year} in {city} geboren.
{full} ({org}) leitet das Projekt seit {month}.
Laut {last} ist das Problem behoben.
Das Treffen mit {full} ist am {day}. {month}.
Herr {last} und Frau {last} sind heute nicht da.
Danke {first}!
Gruß {first}
{first}: kommst du heute?
{first}: ja, bis später.
Eingeladen sind {first}, {first} und {first}.
{lc} wohnt jetzt in {city}.
Es läuft auf den Namen meiner Frau, {full}.
{last} ist ein sehr zuverlässiger Kollege.
{last} war eine große Hilfe beim Umzug.
{first} ist eine hervorragende Köchin.
{full} ist Rentner und wohnt in {city}.
„Die Preise steigen weiter“, sagt {last}.
Laut {last} wurde der Plan nie genehmigt.
{last} und {last} waren jahrelang Partner.
{title} {full}\n{street}\n{num} {town}
`,
	"de-neg": `
Niemand hat gestern angerufen.
Der Kundendienst sagt, das Paket ist angekommen.
Warum ist die App so langsam?
Sag dem Fahrer bitte, dass ich angerufen habe.
„Wir gehen in Berufung“, sagten die Anwälte.
Die Bestellung {num} wurde am {weekday} versendet.
Unser Büro in {city} ist am {weekday} geschlossen.
Die Rechnung für {month} liegt im Anhang.
{org} hat heute neue Zahlen veröffentlicht.
Das Treffen wurde auf {weekday} verschoben.
Bitte bestätigen Sie den Termin bis {day}. {month}.
Wir wohnen in der {street} in {city}.
Das neue {product} ist ab {month} erhältlich.
Sehr geehrte Damen und Herren,
Vielen Dank für Ihre Bestellung bei {org}.
Der Zug nach {city} fährt um {time} ab.
Die Universität {city} wurde {year} gegründet.
Ihr Kundenservice-Team\n{org}
Ich arbeite bei {org2}.
{org2} sucht Mitarbeiter in {city}.
Wir wohnen in der {pstreet} {day} in {city}.
Das Paket geht an {pstreet} {day}.
Der Zug fährt von {town} nach {town}.
Wir ziehen im {month} nach {town}.
{town} ist ein kleiner Ort bei {city}.
{city} ist eine schöne Stadt.
{org} ist ein großes Unternehmen.
{product} war eine große Hilfe beim Umzug.
Lieferadresse:\n{pstreet} {day}\n{num} {town}
`,
	"fr": `
Décès : {ini}, {day} ans, rue de la Paix.
Mariage de M. {ini} avec Mlle {ini}.
M. de {last} a pris la parole.
Les agents {last} et {last} ont arrêté le voleur.
Un nommé {full} a été arrêté hier soir.
L'agent {last} a été blessé.
M. {last}, maire de {town}, a présidé la séance.
Le ministre {last} a démissionné.
Le sieur {last} et la veuve {last} sont cités comme témoins.
Le général {last} est arrivé à {city}.
Mme veuve {last}, née {last}.
Le tribunal a condamné {full} à deux ans de prison.
Résultats : 1. {last}, 2. {last}, 3. {last}.
{first} a appelé hier pour la facture.
{first} dit que le colis est arrivé.
{first} est malade aujourd'hui.
Pourquoi {first} est si fâché ?
J'ai donné les clés à {first}.
Dis à {first} que j'ai appelé.
Notre fils {first} entre à l'école en {month}.
« Nous ferons appel », a déclaré {last}.
{last} avait raison.
Bonjour, je m'appelle {full} et j'ai une question sur ma commande.
Je suis {first}, de {org}.
je m'appelle {lc}
Madame {last}, Monsieur {last},
Cher {first}, chère {first},
Bonjour {title} {last},
Cordialement,\n{full}
Bien à vous,\n{full}\n{org}
Merci {first} !
Bisous, {first}
Veuillez contacter {title} {full} à {email}.
{full} sera absent jusqu'à {weekday}.
Tu peux transférer ça à {first} ?
J'ai parlé avec {title} {last} hier.
Nom : {last}\nPrénom : {first}
Client : {full}, {city}
Titulaire du compte : {caps}
salut c'est {lc}
demande à {lc} stp
{full} est né en {year} à {city}.
Selon {last}, le problème est résolu.
Rendez-vous avec {full} le {day} {month}.
Mon mari {first} et moi arrivons {weekday}.
Signé : {full}
{first} : tu viens ce soir ?
{first} : oui, à plus.
Les invités sont {first}, {first} et {first}.
{lc} habite à {city}.
C'est au nom de ma femme, {full}.
{last} est un collègue très fiable.
{last} était d'une grande aide pour le déménagement.
{first} est une excellente cuisinière.
{full} est retraité et vit à {city}.
« Les prix vont encore monter », dit {last}.
Selon {last}, le projet n'a jamais été approuvé.
{last} et {last} étaient associés depuis des années.
{full}\n{day} {street}\n{num} {town}
`,
	"fr-neg": `
Personne n'a appelé hier.
Le service client dit que le colis est arrivé.
Pourquoi l'application est si lente ?
Dis au chauffeur que j'ai appelé.
« Nous ferons appel », ont déclaré les avocats.
La commande {num} a été expédiée {weekday}.
Notre bureau de {city} est fermé le {weekday}.
Vous trouverez ci-joint la facture de {month}.
{org} a publié ses résultats aujourd'hui.
La réunion est reportée à {weekday}.
Nous habitons {street} à {city}.
Madame, Monsieur,
Merci pour votre commande chez {org}.
Le train pour {city} part à {time}.
L'université de {city} a été fondée en {year}.
Je travaille chez {org2}.
{org2} recrute à {city}.
Nous habitons au {day} {pstreet} à {city}.
Le colis est parti au {day} {pstreet}.
Le train va de {town} à {town}.
Nous déménageons à {town} en {month}.
{town} est un petit village près de {city}.
{city} est une belle ville.
{org} est une grande entreprise.
{product} était d'une grande aide pour le déménagement.
Adresse de livraison :\n{day} {pstreet}\n{num} {town}
`,
	"es": `
{first} llamó ayer por la factura.
{first} dice que el paquete ya llegó.
{first} está enfermo hoy.
¿Por qué {first} está tan enfadado?
Le di las llaves a {first}.
Dile a {first} que llamé.
Mi hija {first} empieza el colegio en {month}.
"Vamos a apelar", dijo {last}.
{last} tenía razón.
Hola, me llamo {full} y tengo una pregunta sobre mi pedido.
Soy {first}, de {org}.
me llamo {lc}
Estimado {title} {last}:
Estimada {first},
Hola {first}, ¿qué tal?
Saludos,\n{full}
Atentamente,\n{full}\n{org}
Gracias {first}!
Un abrazo, {first}
Por favor, contacte con {title} {full} en {email}.
{full} estará fuera hasta el {weekday}.
¿Puedes reenviarle esto a {first}?
Ayer hablé con {title} {last}.
Nombre: {first}\nApellidos: {last}
Cliente: {full}, {city}
Titular de la cuenta: {caps}
hola soy {lc}
pregúntale a {lc}
{full} nació en {city} en {year}.
Según {last}, el problema está resuelto.
Cita con {full} el {day} de {month}.
Mi marido {first} y yo llegamos el {weekday}.
Firmado: {full}
{first}: ¿vienes esta noche?
{first}: sí, hasta luego.
Los invitados son {first}, {first} y {first}.
{lc} vive en {city}.
Está a nombre de mi mujer, {full}.
{last} es un compañero muy fiable.
{last} fue de gran ayuda con la mudanza.
{first} es una cocinera excelente.
{full} está jubilado y vive en {city}.
«Los precios seguirán subiendo», dice {last}.
Según {last}, el plan nunca se aprobó.
{last} y {last} fueron socios durante años.
{full}\n{street}\n{num} {town}
`,
	"es-neg": `
Nadie llamó ayer.
Atención al cliente dice que el paquete ya llegó.
¿Por qué la aplicación va tan lenta?
Dile al conductor que llamé.
"Vamos a apelar", dijeron los abogados.
El pedido {num} se envió el {weekday}.
Nuestra oficina de {city} está cerrada el {weekday}.
Adjunto la factura de {month}.
{org} publicó hoy sus resultados.
La reunión se ha aplazado al {weekday}.
Vivimos en {street}, {city}.
Estimados señores:
Gracias por su pedido en {org}.
El tren a {city} sale a las {time}.
Trabajo en {org2}.
{org2} busca personal en {city}.
Vivimos en {pstreet} {day}, {city}.
El paquete va a {pstreet} {day}.
El tren va de {town} a {town}.
Nos mudamos a {town} en {month}.
{town} es un pueblo cerca de {city}.
{city} es una ciudad preciosa.
{org} es una empresa muy grande.
{product} fue de gran ayuda con la mudanza.
Dirección de entrega:\n{pstreet} {day}\n{num} {town}
`,
	"it": `
{first} ha chiamato ieri per la fattura.
{first} dice che il pacco è arrivato.
{first} oggi è malato.
Perché {first} è così arrabbiato?
Ho dato le chiavi a {first}.
Di' a {first} che ho chiamato.
Mia figlia {first} inizia la scuola a {month}.
"Faremo ricorso", ha detto {last}.
{last} aveva ragione.
Ciao, mi chiamo {full} e ho una domanda sul mio ordine.
Sono {first}, di {org}.
mi chiamo {lc}
Gentile {title} {last},
Caro {first}, cara {first},
Ciao {first}, come stai?
Cordiali saluti,\n{full}
Distinti saluti,\n{full}\n{org}
Grazie {first}!
Un abbraccio, {first}
Si prega di contattare {title} {full} all'indirizzo {email}.
{full} sarà assente fino a {weekday}.
Puoi inoltrarlo a {first}?
Ieri ho parlato con {title} {last}.
Nome: {first}\nCognome: {last}
Cliente: {full}, {city}
Intestatario del conto: {caps}
ciao sono {lc}
chiedi a {lc}
{full} è nato a {city} nel {year}.
Secondo {last}, il problema è risolto.
Appuntamento con {full} il {day} {month}.
Mio marito {first} e io arriviamo {weekday}.
Firmato: {full}
{first}: vieni stasera?
{first}: sì, a dopo.
Gli invitati sono {first}, {first} e {first}.
{lc} abita a {city}.
È intestato a mia moglie, {full}.
{last} è un collega molto affidabile.
{last} è stato di grande aiuto con il trasloco.
{first} è una cuoca eccellente.
{full} è in pensione e vive a {city}.
«I prezzi continueranno a salire», dice {last}.
Secondo {last}, il progetto non è mai stato approvato.
{last} e {last} sono stati soci per anni.
{full}\n{street}\n{num} {town}
`,
	"it-neg": `
Nessuno ha chiamato ieri.
L'assistenza dice che il pacco è arrivato.
Perché l'app è così lenta?
Di' all'autista che ho chiamato.
"Faremo ricorso", hanno detto gli avvocati.
L'ordine {num} è stato spedito {weekday}.
Il nostro ufficio di {city} è chiuso il {weekday}.
In allegato la fattura di {month}.
{org} ha pubblicato oggi i risultati.
La riunione è stata rinviata a {weekday}.
Abitiamo in {street}, {city}.
Gentili signori,
Grazie per il suo ordine su {org}.
Lavoro presso {org2}.
{org2} assume a {city}.
Abitiamo in {pstreet} {day}, {city}.
Il pacco va in {pstreet} {day}.
Il treno va da {town} a {town}.
Ci trasferiamo a {town} a {month}.
{town} è un piccolo paese vicino a {city}.
{city} è una città bellissima.
{org} è una grande azienda.
{product} è stato di grande aiuto con il trasloco.
Indirizzo di consegna:\n{pstreet} {day}\n{num} {town}
`,
	"nl": `
GEBOORTEN. {ini}, z.
OVERLEDEN. {ini} wed. van {ini}, oud {day} j.
{ini} jm., oud {day} j.
{ini} huisvr. van {ini}, oud {day} j.
HUWELIJKEN. {ini} jm. oud {day} j. met {ini} jd. oud {day} j.
Benoemd tot notaris te {town}: {ini}.
De heer van {last} heeft het woord gevoerd.
De heer {last} heeft tegen gestemd.
Minister {last} is afgetreden.
De heeren {last} en {last} werden herkozen.
Generaal {last} kwam gisteren aan te {city}.
De buurman {full}, winkelier alhier, hoorde het geschreeuw.
Overleden: {full}, wed. van {full}, oud {day} j.
Gedrukt bij {full} te {town}.
De president {last} heeft het kabinet ontslagen.
Geboren: {full}, z. van {full}.
Het proces tegen {full} begint in {month}.
{first} belde gisteren over de factuur.
{first} zegt dat het pakket is aangekomen.
{first} is vandaag ziek.
Waarom is {first} zo boos?
Ik heb {first} de sleutels gegeven.
Zeg tegen {first} dat ik gebeld heb.
Onze zoon {first} gaat in {month} naar school.
"We gaan in beroep", zei {last}.
{last} had gelijk.
Hallo, mijn naam is {full} en ik heb een vraag over mijn bestelling.
Ik ben {first} van {org}.
ik ben {lc}
Geachte {title} {last},
Beste {first},
Hoi {first}, hoe gaat het?
Met vriendelijke groet,\n{full}
Groeten,\n{full}\n{org}
Bedankt {first}!
Groetjes, {first}
Neem contact op met {title} {full} via {email}.
{full} is afwezig tot {weekday}.
Kun je dit doorsturen naar {first}?
Ik heb gisteren met {title} {last} gesproken.
Naam: {full}\nTelefoon: {phone}
Voornaam: {first}\nAchternaam: {last}
Klant: {full}, {city}
Rekeninghouder: {caps}
hoi ik ben {lc}
vraag het aan {lc}
{full} werd in {year} geboren in {city}.
Volgens {last} is het probleem opgelost.
Afspraak met {full} op {day} {month}.
Mijn man {first} en ik komen {weekday}.
Getekend: {full}
{first}: kom je vanavond?
{first}: ja, tot straks.
De gasten zijn {first}, {first} en {first}.
{lc} woont in {city}.
Het staat op naam van mijn vrouw, {full}.
{last} is een heel betrouwbare collega.
{last} was een grote hulp bij de verhuizing.
{first} is een uitstekende kok.
{full} is gepensioneerd en woont in {city}.
"De prijzen blijven stijgen," zegt {last}.
Volgens {last} is het plan nooit goedgekeurd.
{last} en {last} waren jarenlang partners.
{first}'s fiets staat nog buiten.
{full}\n{street}\n{num} {town}
`,
	"nl-neg": `
Niemand belde gisteren.
De klantenservice zegt dat het pakket is aangekomen.
Waarom is de app zo traag?
Zeg tegen de chauffeur dat ik gebeld heb.
"We gaan in beroep", zeiden de advocaten.
Bestelling {num} is op {weekday} verzonden.
Ons kantoor in {city} is op {weekday} gesloten.
In de bijlage vindt u de factuur van {month}.
{org} heeft vandaag de cijfers gepubliceerd.
De vergadering is verplaatst naar {weekday}.
Wij wonen aan de {street} in {city}.
Geachte heer/mevrouw,
Bedankt voor uw bestelling bij {org}.
Ik werk bij {org2}.
{org2} zoekt personeel in {city}.
Wij wonen aan de {pstreet} {day} in {city}.
Het pakket gaat naar {pstreet} {day}.
De trein rijdt van {town} naar {town}.
We verhuizen in {month} naar {town}.
{town} is een dorp bij {city}.
{city} is een mooie stad.
{org} is een groot bedrijf.
{product} was een grote hulp bij de verhuizing.
Afleveradres:\n{pstreet} {day}\n{num} {town}
`,
	"pt": `
{first} ligou ontem por causa da fatura.
{first} diz que a encomenda chegou.
{first} está doente hoje.
Por que {first} está tão chateado?
Dei as chaves ao {first}.
Diz ao {first} que eu liguei.
A minha filha {first} começa a escola em {month}.
"Vamos recorrer", disse {last}.
{last} tinha razão.
Olá, o meu nome é {full} e tenho uma dúvida sobre a minha encomenda.
Olá, meu nome é {full} e tenho uma pergunta sobre meu pedido.
Sou {first}, da {org}.
eu sou {lc}
Prezado {title} {last},
Caro {first}, cara {first},
Oi {first}, tudo bem?
Atenciosamente,\n{full}
Cumprimentos,\n{full}\n{org}
Obrigado {first}!
Abraços, {first}
Por favor, contacte {title} {full} através de {email}.
{full} estará ausente até {weekday}.
Podes reencaminhar isto para {first}?
Ontem falei com {title} {last}.
Nome: {full}\nTelefone: {phone}
Cliente: {full}, {city}
Titular da conta: {caps}
oi sou {lc}
pergunta ao {lc}
{full} nasceu em {city} em {year}.
Segundo {last}, o problema está resolvido.
Reunião com {full} no dia {day} de {month}.
O meu marido {first} e eu chegamos {weekday}.
Assinado: {full}
O autor {full} ajuizou ação contra {org}.
O relator, Ministro {full}, votou pelo provimento do recurso.
{first}: vens hoje à noite?
{first}: sim, até logo.
Os convidados são {first}, {first} e {first}.
{lc} mora em {city}.
Está em nome da minha mulher, {full}.
{last} é um colega muito confiável.
{last} foi uma grande ajuda na mudança.
{first} é uma cozinheira excelente.
{full} é aposentado e mora em {city}.
"Os preços vão continuar a subir", diz {last}.
Segundo {last}, o plano nunca foi aprovado.
{last} e {last} foram sócios durante anos.
{full}\n{street}\n{num} {town}
`,
	"pt-neg": `
Ninguém ligou ontem.
O apoio ao cliente diz que a encomenda chegou.
Por que a aplicação está tão lenta?
Diz ao motorista que eu liguei.
"Vamos recorrer", disseram os advogados.
A encomenda {num} foi enviada na {weekday}.
O nosso escritório em {city} está fechado na {weekday}.
Segue em anexo a fatura de {month}.
{org} publicou hoje os resultados.
A reunião foi adiada para {weekday}.
Moramos na {street}, em {city}.
Prezados senhores,
Obrigado pela sua encomenda na {org}.
Trabalho na {org2}.
{org2} contrata em {city}.
Moramos na {pstreet}, {day}, em {city}.
A encomenda vai para a {pstreet}, {day}.
O comboio vai de {town} para {town}.
Mudamo-nos para {town} em {month}.
{town} é uma vila perto de {city}.
{city} é uma cidade linda.
{org} é uma empresa muito grande.
{product} foi uma grande ajuda na mudança.
Morada de entrega:\n{pstreet}, {day}\n{num} {town}
`,
	"pl": `
Dzień dobry, nazywam się {full} i mam pytanie o zamówienie.
Jestem {first} z {org}.
jestem {lc}
Szanowny {title} {last},
Droga {first}, drogi {first},
Cześć {first}, co słychać?
Pozdrawiam,\n{full}
Z poważaniem,\n{full}\n{org}
Dzięki {first}!
Proszę o kontakt z {title} {full} pod adresem {email}.
{full} będzie nieobecny do {weekday}.
Możesz przekazać to {first}?
Wczoraj rozmawiałem z {title} {last}.
Imię: {first}\nNazwisko: {last}
Klient: {full}, {city}
cześć tu {lc}
{full} urodził się w {city} w {year} roku.
Według {last} problem został rozwiązany.
Podpisano: {full}
{first}: przyjdziesz dziś?
{first}: tak, do zobaczenia.
Gośćmi są {first}, {first} i {first}.
{lc} mieszka w {city}.
Konto jest na żonę, {full}.
{last} jest bardzo rzetelnym kolegą.
{last} bardzo pomógł przy przeprowadzce.
{first} jest świetną kucharką.
„Ceny będą dalej rosnąć” – mówi {last}.
{last} i {last} byli wspólnikami przez lata.
{full}\n{street}\n{num} {town}
`,
	"pl-neg": `
Zamówienie {num} zostało wysłane w {weekday}.
Nasze biuro w {city} jest zamknięte w {weekday}.
W załączniku faktura za {month}.
{org} opublikował dziś wyniki.
Spotkanie przełożono na {weekday}.
Mieszkamy przy {street} w {city}.
Szanowni Państwo,
Pracuję w {org2}.
{org2} zatrudnia w {city}.
Mieszkamy przy {pstreet} {day} w {city}.
Paczka idzie na {pstreet} {day}.
Pociąg jedzie z {town} do {town}.
Przeprowadzamy się do {town}.
{town} to mała wieś koło {city}.
{city} to piękne miasto.
{org} to duża firma.
Adres dostawy:\n{pstreet} {day}\n{num} {town}
`,
}

// Per-language fillers for the slots that are not names.
var titles = map[string][]string{
	"en": {"Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "Mr", "Ms", "Dr"},
	"de": {"Herr", "Frau", "Dr.", "Herr Dr.", "Frau Dr.", "Prof."},
	"fr": {"M.", "Mme", "Mlle", "Dr", "Me", "Monsieur", "Madame"},
	"es": {"Sr.", "Sra.", "Srta.", "Dr.", "Dra.", "Don", "Doña"},
	"it": {"Sig.", "Sig.ra", "Dott.", "Dott.ssa", "Ing.", "Avv.", "Prof."},
	"nl": {"dhr.", "mevr.", "Dr.", "de heer", "mevrouw"},
	"pt": {"Sr.", "Sra.", "Dr.", "Dra.", "Dona"},
	"pl": {"Pan", "Pani", "Dr", "Pana", "Panią"},
}

var cities = map[string][]string{
	"en": {"London", "Manchester", "Leeds", "Boston", "Chicago", "Denver", "Austin", "Portland", "Dublin", "Cork", "Sydney", "Perth", "Toronto", "Seattle", "Phoenix", "Nashville", "Brighton", "Oxford", "Bristol", "Glasgow", "Cardiff", "Springfield", "Madison", "Columbus", "Jackson", "Lincoln", "Charlotte", "Victoria"},
	"de": {"Berlin", "Hamburg", "München", "Köln", "Frankfurt", "Stuttgart", "Leipzig", "Dresden", "Hannover", "Nürnberg", "Bremen", "Essen", "Bonn", "Mainz", "Kassel", "Freiburg", "Wien", "Graz", "Zürich", "Bern", "Potsdam", "Rostock", "Augsburg", "Regensburg"},
	"fr": {"Paris", "Lyon", "Marseille", "Toulouse", "Nice", "Nantes", "Lille", "Bordeaux", "Rennes", "Grenoble", "Dijon", "Angers", "Brest", "Tours", "Metz", "Nancy", "Genève", "Lausanne", "Bruxelles", "Liège", "Namur"},
	"es": {"Madrid", "Barcelona", "Valencia", "Sevilla", "Zaragoza", "Málaga", "Bilbao", "Granada", "Salamanca", "Toledo", "Córdoba", "Murcia", "Alicante", "Vigo", "Oviedo", "Santander", "Cádiz", "Buenos Aires", "Lima", "Bogotá", "Santiago"},
	"it": {"Roma", "Milano", "Napoli", "Torino", "Palermo", "Genova", "Bologna", "Firenze", "Bari", "Catania", "Venezia", "Verona", "Padova", "Trieste", "Parma", "Modena", "Pisa", "Siena", "Lecce", "Bergamo"},
	"nl": {"Amsterdam", "Rotterdam", "Den Haag", "Utrecht", "Eindhoven", "Groningen", "Tilburg", "Almere", "Breda", "Nijmegen", "Haarlem", "Arnhem", "Leiden", "Maastricht", "Delft", "Zwolle", "Gent", "Antwerpen", "Brugge"},
	"pt": {"Lisboa", "Porto", "Braga", "Coimbra", "Faro", "Aveiro", "Évora", "Setúbal", "São Paulo", "Rio de Janeiro", "Brasília", "Salvador", "Fortaleza", "Recife", "Curitiba", "Manaus", "Belém", "Campinas"},
	"pl": {"Warszawa", "Kraków", "Łódź", "Wrocław", "Poznań", "Gdańsk", "Szczecin", "Bydgoszcz", "Lublin", "Katowice", "Białystok", "Gdynia", "Toruń", "Rzeszów", "Olsztyn", "Opole"},
}

var countries = []string{"France", "Germany", "Spain", "Italy", "Portugal", "Poland", "Brazil", "Canada", "Mexico", "Japan", "China", "India", "Kenya", "Nigeria", "Egypt", "Norway", "Sweden", "Finland", "Greece", "Turkey", "Chile", "Peru", "Argentina", "Australia", "Ireland", "Scotland", "Austria", "Belgium", "Denmark", "Hungary", "Romania", "Vietnam", "Korea", "Thailand"}

var orgs = []string{"Acme Corp", "Globex", "Initech", "Umbrella Ltd", "Stark Industries", "Wayne Enterprises", "Northwind Traders", "Contoso", "Fabrikam", "Tailspin Toys", "Blue Yonder Airlines", "Siemens", "Bosch", "Deutsche Bahn", "Allianz", "Renault", "Michelin", "Carrefour", "Orange", "Telefónica", "Santander", "Iberdrola", "Mapfre", "Fiat", "Enel", "Eni", "Ferrero", "Philips", "Heineken", "Rabobank", "ING", "Ahold", "Petrobras", "Itaú", "Natura", "Orlen", "Allegro", "PKO Bank Polski", "Microsoft", "Google", "Amazon", "Apple", "Netflix", "Spotify", "Real Madrid", "Manchester United", "Ajax", "Juventus", "Bayern München", "Benfica", "Legia Warszawa", "Sony Music", "Warner Bros", "Universal Records", "the BBC", "Reuters", "Le Monde", "El País", "Corriere della Sera", "Oxford University Press", "the Red Cross", "UNICEF", "the European Commission", "NASA", "Harvard University", "Müller GmbH", "Schmidt & Partner", "Garcia Consulting", "Rossi S.p.A.", "De Vries B.V.", "Silva & Filhos", "Kowalski Sp. z o.o.", "Martin SARL", "Johnson & Johnson", "Ernst & Young", "Ford", "Tesla", "Walt Disney Studios", "Rolling Stone", "Atlantic Records", "Columbia Records", "Liverpool FC", "Chelsea", "the Yankees", "the Lakers"}

var products = []string{"iPhone 15", "Galaxy S23", "Windows 11", "PlayStation 5", "Xbox", "MacBook Pro", "Kindle", "Android", "Office 365", "Photoshop", "Excel", "Teams", "Zoom", "WhatsApp", "Golf GTI", "Model 3", "Corolla", "Nespresso", "Thermomix", "Dyson V15", "Surface Pro", "Pixel 8", "AirPods", "Apple Watch"}

var streets = map[string][]string{
	"en": {"Baker Street", "Main Street", "Oak Avenue", "Elm Road", "King's Road", "Park Lane", "Church Street", "Victoria Road"},
	"de": {"Hauptstraße 12", "Goethestraße 5", "Bahnhofstraße 3", "Friedrich-Ebert-Straße 44", "Schillerplatz 1", "Kantstraße 17"},
	"fr": {"rue de Rivoli", "avenue Victor Hugo", "rue Jean Jaurès", "boulevard Voltaire", "place Charles de Gaulle"},
	"es": {"calle Mayor 5", "avenida de la Constitución", "calle de Cervantes 12", "plaza de España", "paseo de Gracia 21"},
	"it": {"via Roma 10", "via Giuseppe Garibaldi 3", "corso Vittorio Emanuele", "piazza Dante", "via Dante Alighieri 7"},
	"nl": {"Kalverstraat 12", "Prinsengracht 263", "Willemsplein 4", "Hoofdstraat 8", "Johan de Wittlaan 3"},
	"pt": {"Rua Augusta 10", "Avenida da Liberdade 200", "Rua Ana Nery 45", "Praça da Sé", "Rua Direita 3"},
	"pl": {"ul. Marszałkowska 10", "ul. Piotrkowska 5", "ul. Adama Mickiewicza 3", "al. Jana Pawła II 12"},
}

var months = map[string][]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
	"fr": {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
	"es": {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	"it": {"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
	"nl": {"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
	"pt": {"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
	"pl": {"stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października", "listopada", "grudnia"},
}

var weekdays = map[string][]string{
	"en": {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
	"de": {"Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"},
	"fr": {"lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"},
	"es": {"lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"},
	"it": {"lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"},
	"nl": {"maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"},
	"pt": {"segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo"},
	"pl": {"poniedziałek", "wtorek", "środę", "czwartek", "piątek", "sobotę", "niedzielę"},
}

var nationalities = []string{"American", "British", "German", "French", "Spanish", "Italian", "Dutch", "Portuguese", "Polish", "Brazilian", "Canadian", "Australian", "Irish", "Swedish", "Norwegian", "Japanese", "Korean", "Vietnamese", "Chinese", "Mexican", "Argentine", "Nigerian", "Hungarian", "Czech"}

var jobs = []string{"singer", "footballer", "actor", "actress", "politician", "painter", "novelist", "guitarist", "composer", "journalist", "physicist", "architect", "film director", "businessman", "cyclist", "tennis player", "poet", "chemist", "economist", "lawyer"}

// negShare is the percentage of template lines drawn from the lines without names. English
// prose is full of capitalised words that are not names, so it gets more.
var negShare = map[string]int{"en": 50, "de": 33, "fr": 33, "es": 33, "it": 33, "nl": 33, "pt": 33, "pl": 33}

// synthLanguages are the languages templates exist for.
var synthLanguages = []string{"en", "de", "fr", "es", "it", "nl", "pt", "pl"}

type generator struct {
	rng     *rand.Rand
	p       *pools
	lines   map[string][]string
	phrases []string // common English words for capitalised phrases
}

func newGenerator(seed uint64, p *pools, phraseWords []string) *generator {
	g := &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), p: p, lines: map[string][]string{},
		phrases: phraseWords}
	for k, v := range templates {
		for _, l := range strings.Split(v, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				g.lines[k] = append(g.lines[k], strings.ReplaceAll(l, `\n`, "\n"))
			}
		}
	}
	return g
}

func (g *generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// nameGroup picks the group a name is drawn from: mostly the text's language, sometimes any
// other (names travel), with romanised Vietnamese, Chinese, Japanese and Korean names among them.
func (g *generator) nameGroup(lang string) string {
	switch r := g.rng.Float64(); {
	case r < 0.65:
		return lang
	case r < 0.75:
		return "other"
	case r < 0.8:
		return "vi"
	case r < 0.84:
		return "zh"
	case r < 0.87:
		return "ja"
	case r < 0.9:
		return "ko"
	default:
		return g.pick(synthLanguages)
	}
}

func (g *generator) given(group string) string {
	if l := g.p.given[group]; len(l) > 0 {
		return g.pick(l)
	}
	if group == "ko" {
		return g.pick(koSyllables) + "-" + strings.ToLower(g.pick(koSyllables))
	}
	return g.pick(g.p.given["en"])
}

func (g *generator) surname(group string) string {
	if l := g.p.surname[group]; len(l) > 0 && g.rng.IntN(10) > 0 {
		return g.pick(l)
	}
	if group == "ko" {
		return g.pick(koSurnames)
	}
	if l := g.p.surname[group]; len(l) > 0 {
		return g.pick(l)
	}
	return g.pick(g.p.surname["en"])
}

// Romanised Korean surnames and given-name syllables (common spellings), for names the sources
// give only in Hangul.
var (
	koSurnames  = []string{"Kim", "Lee", "Park", "Choi", "Jung", "Kang", "Cho", "Yoon", "Jang", "Lim", "Han", "Oh", "Seo", "Shin", "Kwon", "Hwang", "Ahn", "Song", "Yoo", "Hong", "Jeon", "Ko", "Moon", "Yang", "Son", "Bae", "Baek", "Heo", "Nam"}
	koSyllables = []string{"Ji", "Min", "Seo", "Ha", "Yeon", "Woo", "Jun", "Hyun", "Soo", "Eun", "Jae", "Hye", "Sung", "Young", "Dong", "Hoon", "Jin", "Yun", "Kyung", "Hee", "Won", "Joon", "Sang", "Na", "Ye", "Da", "Bin", "Ho"}
)

// person renders a name of the given form and returns it.
func (g *generator) person(lang, form string) string {
	grp := g.nameGroup(lang)
	first, last := g.given(grp), g.surname(grp)
	switch grp {
	case "zh", "ko", "ja":
		if g.rng.IntN(2) == 0 && form == "full" {
			return last + " " + first // family name first
		}
	case "vi":
		if form == "full" {
			mid := []string{"Văn", "Thị", "Minh", "Ngọc", "Đức", "Thanh", "Quang", "Hoàng"}
			if strings.Contains(first, " ") {
				return last + " " + first
			}
			return last + " " + g.pick(mid) + " " + first
		}
	}
	switch form {
	case "ini":
		// Initials and a surname, as lists and registers print them: "A. W. van Eindhoven".
		var b strings.Builder
		for range 1 + g.rng.IntN(3) {
			b.WriteString(string([]rune(g.given(grp))[0]) + ". ")
		}
		if g.rng.IntN(3) == 0 {
			b.WriteString(particleFor(lang, g))
		}
		return b.String() + last
	case "first":
		return first
	case "last":
		return last
	case "full":
		switch r := g.rng.IntN(20); {
		case r < 2:
			return first + " " + g.given(grp) + " " + last
		case r < 3:
			return first + " " + string([]rune(g.given(grp))[0]) + ". " + last
		case r < 4 && (lang == "es" || lang == "pt"):
			return first + " " + last + " " + g.surname(grp)
		case r < 5 && (lang == "es" || lang == "pt" || lang == "de"):
			return first + " " + last + "-" + g.surname(grp)
		case r < 6:
			return first + " " + particleFor(lang, g) + last
		case r < 7:
			return string([]rune(first)[0]) + ". " + last
		}
		return first + " " + last
	}
	// "name": any form.
	switch r := g.rng.IntN(10); {
	case r < 5:
		return g.person(lang, "full")
	case r < 8:
		return first
	default:
		return last
	}
}

func particleFor(lang string, g *generator) string {
	ps := map[string][]string{
		"en": {"O'", "Mc", "Mac", "de ", "van "},
		"de": {"von ", "van ", "von der ", "zu "},
		"fr": {"de ", "du ", "de la ", "Le ", "d'"},
		"es": {"de ", "del ", "de la ", "de los "},
		"it": {"di ", "De ", "Della ", "D'", "Lo "},
		"nl": {"van ", "van der ", "de ", "van den ", "ter ", "van de "},
		"pt": {"da ", "dos ", "de ", "das ", "do "},
		"pl": {"", "", ""},
	}
	p := g.pick(ps[lang])
	if strings.HasSuffix(p, "'") || p == "Mc" || p == "Mac" {
		return p // O'Brien, McDonald: glued to the surname
	}
	return p
}

// fill renders one template line of lang, appending to b and to the gold spans.
func (g *generator) fill(b *strings.Builder, spans *[]names.Span, lang, line string) {
	for {
		i := strings.IndexByte(line, '{')
		if i < 0 {
			b.WriteString(line)
			return
		}
		j := strings.IndexByte(line[i:], '}')
		if j < 0 {
			b.WriteString(line)
			return
		}
		b.WriteString(line[:i])
		slot := line[i+1 : i+j]
		line = line[i+j+1:]
		start := b.Len()
		person := true
		switch slot {
		case "name", "full", "first", "last", "ini":
			b.WriteString(g.person(lang, slot))
		case "lc":
			b.WriteString(strings.ToLower(g.person(lang, g.pick([]string{"first", "full", "full"}))))
		case "caps":
			b.WriteString(strings.ToUpper(g.person(lang, "full")))
		default:
			person = false
			b.WriteString(g.filler(lang, slot))
		}
		if person {
			*spans = append(*spans, names.Span{Start: start, End: b.Len()})
		}
	}
}

func (g *generator) filler(lang, slot string) string {
	switch slot {
	case "title":
		return g.pick(titles[lang])
	case "city":
		if g.rng.IntN(4) == 0 {
			return g.pick(cities[g.pick(synthLanguages)])
		}
		return g.pick(cities[lang])
	case "country":
		return g.pick(countries)
	case "org":
		return g.pick(orgs)
	case "product":
		return g.pick(products)
	case "month":
		return g.pick(months[lang])
	case "weekday":
		return g.pick(weekdays[lang])
	case "num":
		return strconv.Itoa(10000 + g.rng.IntN(9000000))
	case "year":
		return strconv.Itoa(1890 + g.rng.IntN(135))
	case "day":
		return strconv.Itoa(1 + g.rng.IntN(28))
	case "time":
		return strconv.Itoa(7+g.rng.IntN(12)) + ":" + g.pick([]string{"00", "15", "30", "45"})
	case "phone":
		return "+" + strconv.Itoa(30+g.rng.IntN(20)) + " " + strconv.Itoa(100+g.rng.IntN(900)) + " " + strconv.Itoa(1000000+g.rng.IntN(8999999))
	case "email":
		first := asciiWord(g.given(g.nameGroup(lang)))
		last := asciiWord(g.surname(g.nameGroup(lang)))
		return strings.ToLower(first+"."+last) + "@" + g.pick([]string{"example.com", "mail.de", "gmail.com", "outlook.fr", "empresa.es", "azienda.it", "bedrijf.nl", "empresa.pt", "firma.pl"})
	case "street":
		return g.pick(streets[lang])
	case "nat":
		return g.pick(nationalities)
	case "job":
		return g.pick(jobs)
	case "phrase":
		return g.phrase()
	case "org2":
		return g.surnameOrg(lang)
	case "pstreet":
		return g.personStreet(lang)
	case "town":
		return g.town(lang)
	}
	return slot
}

// phrase is a capitalised phrase of one to three common English words, the shape of titles,
// bands, places, teams and events ("Silver Lake", "Killing Joke", "A Beautiful Lie").
func (g *generator) phrase() string {
	n := 1 + g.rng.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = capitalise(g.pick(g.phrases))
	}
	if g.rng.IntN(5) == 0 {
		return g.pick([]string{"The ", "A ", "New ", "Big "}) + strings.Join(parts, " ")
	}
	return strings.Join(parts, " ")
}

func capitalise(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + w[n:]
}

// town is a place name of the kind no list holds: a surname used as a town ("Harrison"), or a
// surname or common word with a place ending ("Bridgton", "Kleindorf", "Saint-Mard").
func (g *generator) town(lang string) string {
	base := g.surname(g.nameGroup(lang))
	if strings.ContainsAny(base, " ") {
		base = strings.Fields(base)[0]
	}
	switch g.rng.IntN(4) {
	case 0:
		return base
	case 1:
		if len(g.phrases) > 0 {
			base = capitalise(g.pick(g.phrases))
		}
	}
	endings := map[string][]string{
		"en": {"ton", "ville", "field", "ford", "ham", "burg", " Junction", " Falls", " Springs", "wood"},
		"de": {"dorf", "hausen", "heim", "berg", "burg", "feld", "stadt", "ingen"},
		"fr": {"ville", "court", "-sur-Mer", "-le-Bourg", "mont"},
		"es": {" del Río", " de la Sierra", "illa", "ejo"},
		"it": {" Terme", " Marittima", "ello", "ano"},
		"nl": {"dam", "dorp", "veen", "hoven", "broek"},
		"pt": {" do Sul", " da Serra", "ópolis", "ense"},
		"pl": {"ów", "owo", "ice", "ino"},
	}
	return base + g.pick(endings[lang])
}

// surnameOrg is an organisation named after people: "Hawkins, Richardson and Santana",
// "Garcia-Roberson", "Müller & Söhne", "Kowalski Group". It is not a person.
func (g *generator) surnameOrg(lang string) string {
	grp := g.nameGroup(lang)
	a, b, c := g.surname(grp), g.surname(grp), g.surname(grp)
	and := map[string]string{"en": "and", "de": "und", "fr": "et", "es": "y", "it": "e", "nl": "en", "pt": "e", "pl": "i"}[lang]
	switch g.rng.IntN(7) {
	case 0:
		return a + ", " + b + " " + and + " " + c
	case 1:
		return a + "-" + b
	case 2:
		return a + " & " + b
	case 3:
		return a + " " + and + " " + b
	default:
		return a + " " + g.pick([]string{"Inc.", "Ltd", "LLC", "GmbH", "AG", "SA", "S.p.A.", "B.V.", "Group", "& Sons", "Associates", "Consulting", "Partners", "Holdings", "Sp. z o.o.", "Lda."})
	}
}

// personStreet is a street named after a person, as streets so often are: "Victor Hugo u.",
// "Rua Ana Nery", "Joaquin Suarez", "Goethestraße". It is an address, not a person.
func (g *generator) personStreet(lang string) string {
	grp := g.nameGroup(lang)
	full := g.given(grp) + " " + g.surname(grp)
	last := g.surname(grp)
	switch g.rng.IntN(10) {
	case 0:
		return full
	case 1:
		return last + g.pick([]string{"straße", "strasse", "weg", "laan", "straat", "gasse"})
	}
	forms := map[string][]string{
		"en": {full + " Street", full + " Road", last + " Avenue", full + " Drive", last + " Lane"},
		"de": {full + "-Straße", full + "-Platz", last + "straße"},
		"fr": {"rue " + full, "avenue " + full, "boulevard " + full, "place " + full},
		"es": {"calle " + full, "avenida " + full, "plaza de " + full, "calle de " + full},
		"it": {"via " + full, "viale " + full, "piazza " + full, "corso " + full},
		"nl": {full + "laan", full + "straat", full + "plein", last + "straat"},
		"pt": {"Rua " + full, "Avenida " + full, "Praça " + full, "Travessa " + full},
		"pl": {"ul. " + full, "al. " + full, "plac " + full},
	}
	return g.pick(forms[lang])
}

// asciiWord keeps the ASCII letters of a name's first word, for e-mail addresses.
func asciiWord(s string) string {
	var b strings.Builder
	for _, r := range fold(strings.Fields(s)[0]) {
		if r < utf8.RuneSelf && unicode.IsLetter(r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "user"
	}
	return b.String()
}

// example writes one training text in lang: one to three template lines (from the name
// templates, or from the templates without names a third of the time), joined by spaces or
// line breaks.
func (g *generator) example(lang string) names.Example {
	var b strings.Builder
	var spans []names.Span
	n := 1 + g.rng.IntN(3)
	for k := 0; k < n; k++ {
		if k > 0 {
			b.WriteString(g.pick([]string{" ", " ", "\n", "\n\n"}))
		}
		key := lang
		if g.rng.IntN(100) < negShare[lang] {
			key = lang + "-neg"
		}
		line := g.pick(g.lines[key])
		g.fill(&b, &spans, lang, line)
	}
	return names.Example{Text: b.String(), Names: spans}
}
