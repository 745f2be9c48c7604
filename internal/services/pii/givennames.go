package pii

import "strings"

// givenNamesText is a hand-curated list of very common given names from many countries, written
// for this package (no external list was copied). Names that are also everyday English words or
// places (Will, May, June, Grace, Hope, Bill, Paris, Jordan, Victoria, ...) are left out on
// purpose: a given name here followed by a capitalised word is reported as a person, so each
// entry must rarely start anything else.
const givenNamesText = `
Aaron Abby Abdul Abdullah Abena Abigail Adam Adebayo Adrian Agata Agnieszka Agustin Ahmad Ahmed
Aiden Aino Aisha Akira Alan Albert Alberto Alejandra Alejandro Aleksandr Aleksandra Alessandro
Alessia Alex Alexander Alexandra Alexei Alfred Ali Alice Alicia Alison Allen Amanda Amelia
Amelie Amina Amir Amit Amy Ana Ananya Anastasia Andrea Andreas Andrei Andres Andrew Andrzej
Angela Angelo Anil Anita Anja Ann Anna Anne Annie Anthony Antoine Antonio Anuj Arjun Arthur Arun
Ashley Astrid Ava Aylin Ayse Barbara Bartosz Beatriz Becky Ben Benjamin Bernard Bernd Betty
Beverly Bianca Bjorn Bobby Bogdan Brandon Brenda Brian Brigitte Brittany Brooke Bruno Bryan
Burak Caitlyn Caleb Camila Camille Carl Carla Carlos Carmen Carol Caroline Catalina Catherine
Cecilia Charles Charlotte Chiara Chidi Chloe Chris Christina Christine Christopher Cindy Claire
Claudia Colin Connor Craig Daisuke Dan Daniel Daniela Danielle Danny Dave David Debbie Deborah
Deepak Denise Dennis Derek Diana Diane Diego Dieter Dmitri Dmitry Donald Donna Doris Dorota
Dorothy Douglas Dragan Eddie Eduardo Edward Eero Elena Elif Elisa Elisabeth Elizabeth Ella Ellen
Emeka Emil Emily Emma Emre Enrique Eric Erik Erin Ernst Esther Ethan Eugene Eva Evan Evelyn Ewa
Farah Fatima Fatma Federica Felipe Felix Fernando Florencia Francesca Francesco Francisco
Francois Franz Frederick Frida Gabriel Gabriela Gabriele Gail Gareth Gary Gavin Georg George
Gerald Gerhard Gina Giorgia Giorgio Giovanni Gisela Giulia Giuseppe Gladys Glenn Gloria Gonzalo
Goran Gregory Guillaume Gustavo Hakan Hamid Hanna Hannah Hans Harold Harry Haruka Haruto Hassan
Heather Heidi Heinz Helen Helena Helene Helmut Henrik Henry Hiroshi Horst Howard Hugo Hussein
Ian Ibrahim Ida Ignacio Igor Ilaria Ines Ingrid Irene Irina Isaac Isabel Isabella Isabelle Ivan
Ivana Jackie Jacob Jakub James Jane Janet Janice Jasmine Jason Javier Jean Jeff Jeffrey Jelena
Jennifer Jenny Jens Jeremy Jerry Jessica Jim Jimena Jimmy Jiri Joan Joanna Joao Joaquin Joe Joel
Johan Johann Johanna Johannes John Johnny Jonas Jonathan Jorg Jorge Jose Joseph Joshua Joyce
Juan Judith Judy Juha Jukka Julia Julian Julie Julien Jurgen Justin Kaija Kamil Karen Karim
Karin Karl Kasper Katarina Katarzyna Kate Katherine Kathleen Katie Katrine Kazuki Keijo Keith
Kelly Kenji Kenneth Kevin Khalid Kimberly Kiran Klaus Kofi Kristen Kristian Kristin Krzysztof
Kurt Kwame Kyle Lakshmi Larissa Larry Lars Laura Lauren Laurent Layla Leif Leila Lene Lenka Leon
Leonard Leonardo Leticia Liam Linda Linnea Lisa Logan Lois Lorenzo Lori Louis Louise Luca Lucas
Lucia Lucio Lucy Luis Luisa Lukas Lukasz Mads Magdalena Magnus Manfred Manoj Manuel Marcin Marco
Marek Margaret Maria Mariam Mariana Marie Marija Marilyn Marina Mario Marion Marjorie Marta
Martha Martin Martina Mary Mason Massimo Mateo Mateusz Mathieu Matias Matt Matteo Matthew
Matthias Maurice Maurizio Maximilian Meera Megan Mehdi Mehmet Melissa Mette Mia Michael Michal
Michel Michelle Miguel Mikael Mike Mikhail Mikko Milena Mohamed Mohammad Mohammed Molly Monica
Monika Muhammad Murat Mustafa Nadia Nancy Naoki Naomi Natalia Natalie Natasha Nathalie Nathan
Neha Neil Ngozi Nicholas Nick Nicola Nicolas Nicole Nikola Nikolai Nils Nina Noah Nora Norman
Nour Oksana Olena Olga Oliver Olivia Oluwaseun Omar Oscar Oskar Owen Pablo Paige Pamela Paolo
Patricia Patrick Paul Paula Pavel Pawel Pedro Peggy Pekka Peter Petr Petra Philip Philippe
Pierre Piotr Pooja Priya Rachel Radek Rafael Rafaela Rahul Rajesh Ralph Ramon Rania Raquel Ravi
Raymond Rebecca Renate Reza Riccardo Richard Riikka Robert Roberta Roberto Rodrigo Roger Rohit
Ronald Rosa Russell Ruth Ryan Sabine Sakura Salma Sam Samantha Samir Samuel Sandra Sanjay Sanna
Sara Sarah Scott Sean Sebastian Selin Sergei Sergey Sergio Shane Shannon Sharon Shirley Sigrid
Silvia Simon Simone Sofia Sophia Sophie Soren Stacy Stanley Stefan Stefanie Stefano Stephanie
Stephen Steve Steven Sunil Suresh Susan Sven Svetlana Sylvie Søren Takashi Takeshi Tariq Tatiana
Tendai Teresa Terry Thabo Theresa Thiago Thierry Thomas Tim Timothy Tina Todd Tom Tomas Tomasz
Tommy Tony Tove Tracy Troy Tuomas Tyler Ulf Ursula Ute Uwe Valentin Valentina Valeria Valerie
Vanessa Vera Veronica Vesna Vicky Vijay Vikram Vincent Vinicius Virginie Vladimir Walter Wayne
Wei Wendy Wilhelm William Wojciech Wolfgang Xavier Ximena Yasmin Yaw Youssef Yuki Yulia Yuri
Yusuf Yuto Yves Zeynep Zoe Zoey Zofia Zoltan Zuzana
`

// givenNames is the set built from givenNamesText.
var givenNames = func() map[string]bool {
	m := make(map[string]bool)
	for _, n := range strings.Fields(givenNamesText) {
		m[n] = true
	}
	return m
}()
